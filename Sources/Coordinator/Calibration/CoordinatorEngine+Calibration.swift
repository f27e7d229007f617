import Foundation
public import Planner
import Topology

/// Self-calibration: region-beacon sightings (counted and skipped as clients on ingest) are
/// remembered in ``CoordinatorCalibration``; periodically the gateways' lines are refitted and the
/// estimator rebuilt with them. The ingest side is two dictionary updates per region-beacon
/// sighting; everything else runs at most every ``CoordinatorCalibration/interval``.
extension CoordinatorEngine {
    /// Turns self-calibration on or off and sets how often it refits and its tunables (the memory
    /// starts over; the latest fit is kept).
    public func configureCalibration(enabled: Bool, interval: Double = 60, configuration: CalibrationConfiguration = .init()) {
        var next = CoordinatorCalibration(enabled: enabled, interval: interval, configuration: configuration)
        next.latest = calibration.latest
        next.fittedAt = calibration.fittedAt
        calibration = next
    }

    /// Remembers one gateway's sighting of a region beacon (the ingest hook).
    @inline(__always)
    func noteRegionBeacon(gateway: Int32, region: Int32, rssi: Double, count: Int32, time: Int64) {
        guard calibration.enabled else { return }
        calibration.window.add(gateway: gateway, beacon: region, rssi: rssi, count: Int(count), time: Double(time) / 1000)
    }

    /// Refits when ``CoordinatorCalibration/interval`` has passed since the last attempt; returns
    /// the new fit when one was made (to persist).
    @discardableResult
    public func recalibrateIfDue(now: Int64) -> RadioCalibration? {
        guard calibration.enabled, calibration.lastAttempt.map({ Double(now - $0) >= calibration.interval * 1000 }) ?? true else {
            return nil
        }
        return recalibrate(now: now)
    }

    /// Remembers what a phone ranged in one report (region indices and RSSI), for the powers
    /// phones' ranging shows (the ingest hook).
    func noteRanged(_ ranged: [(region: Int, rssi: Double)]) {
        guard calibration.enabled, !ranged.isEmpty else { return }
        if calibration.ranged == nil { calibration.ranged = RangedRadio(topology: venue.topology) }
        calibration.ranged!.observe(ranged)
    }

    /// Refits from the remembered sightings and applies the usable gateway fits to the estimator,
    /// and refits the powers phones ranged and plans with them. Returns the gateways' fit (nil
    /// when no gateway heard a region beacon yet).
    @discardableResult
    public func recalibrate(now: Int64) -> RadioCalibration? {
        calibration.lastAttempt = now
        if calibration.ranged != nil {
            calibration.ranged!.refit()
            planWithRangedPowers()
        }
        let seconds = Double(now) / 1000
        calibration.window.prune(at: seconds)
        let pairs = calibration.window.snapshot(at: seconds)
        guard !pairs.isEmpty else { return nil }
        let fit = RadioCalibration.fit(topology: venue.topology, pairs: pairs, configuration: calibration.configuration)
        calibration.latest = fit
        calibration.fittedAt = now
        apply(fit)
        return fit
    }

    /// Applies a fit (made now, or restored from the state store) to the venue's estimator by
    /// gateway and region id; ids the venue does not know are ignored.
    public func apply(_ fit: RadioCalibration) {
        if calibration.latest == nil { calibration.latest = fit }
        guard fit.gateways.contains(where: \.usable) || fit.beacons.contains(where: { $0.correction != 0 }),
            let estimator = try? venue.estimator.calibrated(fit)
        else { return }
        venue = venue.replacingEstimator(estimator)
    }

    /// Applies a fit the state store kept from a previous run.
    public func restore(_ fit: RadioCalibration, fitted: Int64) {
        calibration.latest = fit
        calibration.fittedAt = fitted
        apply(fit)
    }

    /// The estimator and the planner go by the powers phones ranged, where fitted
    /// (``Planner/RangedRadio/estimatorPowers``, ``Planner/RangedRadio/plannerPowers``; the nearest
    /// planner has no ranges).
    func planWithRangedPowers() {
        guard let ranged = calibration.ranged else { return }
        // A beacon the gateways fitted keeps the gateways' power (heard from known positions at both ends).
        var powers = ranged.estimatorPowers
        for fit in calibration.latest?.beacons ?? [] where !fit.flags.contains("fixed") && fit.correction != 0 { powers[fit.id] = nil }
        if !powers.isEmpty, let estimator = try? venue.estimator.withRegionPowers(powers) {
            venue = venue.replacingEstimator(estimator)
        }
        if let frontier = venue.planner as? FrontierPlanner {
            venue = venue.replacingPlanner(frontier.withMeasuredPowers(ranged.plannerPowers))
        }
    }

    /// Applies the powers phones ranged that the state store kept from a previous run.
    public func restoreRanged(_ fits: [RangedRadio.Fit]) {
        var ranged = RangedRadio(topology: venue.topology)
        ranged.restore(fits)
        calibration.ranged = ranged
        planWithRangedPowers()
    }

    /// The calibration as `GET /api/calibration` shows it.
    public var calibrationSnapshot: CalibrationSnapshot { calibration.snapshot }

    /// After a topology reload: gateway and region indices changed, so the memory starts over; the
    /// latest fit is applied to the new estimator by id.
    func calibrationVenueReplaced() {
        calibration.window.removeAll()
        if let latest = calibration.latest { apply(latest) }
        if let fits = calibration.ranged?.fits { restoreRanged(fits) }
    }
}
