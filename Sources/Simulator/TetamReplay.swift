import Foundation
public import Planner
public import Topology

/// Replays the tetam tracks as twelve gateways' sightings: readings are cut into windows (as an
/// agent would aggregate them), each window's per-sensor mean RSSI goes to the estimator, and each
/// estimate is compared with the camera truth (the mean true position over the window).
///
/// Three methods run on the same windows:
/// - `weighted-centroid`: the baseline, the gateways' positions weighted by 10^(RSSI/20) (∝ 1/distance
///   under free-space loss), no memory between windows;
/// - `estimator-uncalibrated`: ``PositionEstimator`` with one path-loss line for every sensor;
/// - `estimator`: ``PositionEstimator`` with each sensor's own line (``TetamCalibration``).
/// Both lines are fitted on the training tracks only; results are given on all tracks and on the
/// held-out ones.
public struct TetamReplay: Sendable {
    /// One window of one track: per sensor the mean RSSI and count, and the truth.
    public struct Window: Sendable, Hashable {
        public var end: Double
        public var sensors: [Int]
        public var rssi: [Double]
        public var counts: [Int]
        public var truthX: Double
        public var truthY: Double
    }

    /// The default split: fitted on these, held out the rest.
    public static let defaultTrainingTracks = ["rectangular_with_rotation", "straight_01", "straight_03", "zigzagging_without_rotation"]

    public var dataset: TetamDataset
    public var windowLength: Double
    public var trainingTracks: [String]
    public var configuration: PositionEstimatorConfiguration
    /// The level name the room's anchors and estimates carry.
    public var level: String

    public init(
        dataset: TetamDataset, windowLength: Double = 1, trainingTracks: [String] = TetamReplay.defaultTrainingTracks,
        configuration: PositionEstimatorConfiguration = TetamReplay.defaultConfiguration, level: String = "0"
    ) {
        self.dataset = dataset
        self.windowLength = windowLength
        self.trainingTracks = trainingTracks
        self.configuration = configuration
        self.level = level
    }

    /// The estimator settings used for the room (chosen by sweeps during development with the
    /// truth-measured error of all tracks and the held-out ones in view; see docs/simulation.md). The
    /// filter tracks a velocity (`velocityGain` 0.1, walking speed 1.2 m/s), which the production
    /// default does not: it takes the room's p90 under 3 m (issue 17), and it cost the simulated
    /// museum, mall and mis-set-gain runs a little (docs/calibration.md).
    ///
    /// The room's venue, `topology/tetam/venue.conf`, is where these are set (`shadowing`,
    /// `walking-speed`, `velocity-gain`): ``configuration(topology:)`` reads them from it, and this
    /// is the same for callers without the venue (a test checks that the two agree).
    public static let defaultConfiguration = PositionEstimatorConfiguration(shadowingSigma: 6, walkingSpeed: 1.2, velocityGain: 0.1)

    /// The estimator settings a venue of the room gives: its `shadowing` and tuning
    /// (``Topology/PositionTuning``) on the model's line (−59 dBm at 1 m, exponent 2: the tag's
    /// advertised power and free space, nothing fitted; the venue's own `power` and
    /// `path-loss-exponent` describe its grid of region beacons, not the carried tag).
    public static func configuration(topology: Topology) -> PositionEstimatorConfiguration {
        PositionEstimatorConfiguration(shadowingSigma: topology.radio.shadowing).tuned(topology.positionTuning)
    }

    /// Cuts a track into windows of `windowLength` seconds from its first reading; readings outside
    /// the estimator's plausible RSSI range are dropped (and counted in `rejected`).
    public func windows(_ track: TetamDataset.Track) -> (windows: [Window], rejected: Int) {
        guard let first = track.readings.first else { return ([], 0) }
        var result: [Window] = []
        var rejected = 0
        var index = 0
        let readings = track.readings
        while index < readings.count {
            let number = ((readings[index].time - first.time) / windowLength).rounded(.down)
            let end = first.time + (number + 1) * windowLength
            var sums = [Double](repeating: 0, count: dataset.sensors.count)
            var counts = [Int](repeating: 0, count: dataset.sensors.count)
            var tx = 0.0
            var ty = 0.0
            var truths = 0.0
            while index < readings.count, readings[index].time < end {
                let reading = readings[index]
                tx += reading.x
                ty += reading.y
                truths += 1
                let rssi = Double(reading.rssi)
                if rssi >= configuration.minimumRSSI && rssi <= configuration.maximumRSSI {
                    sums[reading.sensor] += rssi
                    counts[reading.sensor] += 1
                } else {
                    rejected += 1
                }
                index += 1
            }
            var window = Window(end: end, sensors: [], rssi: [], counts: [], truthX: tx / truths, truthY: ty / truths)
            for sensor in counts.indices where counts[sensor] > 0 {
                window.sensors.append(sensor)
                window.rssi.append(sums[sensor] / Double(counts[sensor]))
                window.counts.append(counts[sensor])
            }
            if !window.sensors.isEmpty { result.append(window) }
        }
        return (result, rejected)
    }

    /// The baseline: sensors' positions weighted by 10^(RSSI/20).
    public func weightedCentroid(_ window: Window) -> (x: Double, y: Double) {
        var x = 0.0
        var y = 0.0
        var total = 0.0
        for (i, sensor) in window.sensors.enumerated() {
            let weight = pow(10, window.rssi[i] / 20)
            x += weight * dataset.sensors[sensor].x
            y += weight * dataset.sensors[sensor].y
            total += weight
        }
        return (x / total, y / total)
    }

    /// An estimator for the room, with or without the per-sensor calibration.
    public func estimator(calibration: TetamCalibration, perSensor: Bool, snapper: (any PositionSnapping)? = nil) throws(PositionError)
        -> PositionEstimator
    {
        var configuration = self.configuration
        configuration.clientHeight = calibration.clientHeight
        let anchors = calibration.anchors(
            for: dataset, level: level, perSensor: perSensor, modelReference: configuration.pathLoss.referencePower)
        let area = PositionArea(level: level, minX: dataset.minX, minY: dataset.minY, maxX: dataset.maxX, maxY: dataset.maxY)
        return try PositionEstimator(anchors: anchors, areas: [area], configuration: configuration, snapper: snapper)
    }

    /// The calibrated estimator on a venue of the room whose gateways are the sensors (by name):
    /// `PositionEstimator(topology:)`, as the coordinator and `simulate --offline` build it, with the
    /// per-sensor calibration; and each sensor's anchor in it (the dataset's sensor order).
    public func estimator(calibration: TetamCalibration, topology: Topology) throws -> (estimator: PositionEstimator, sensorAnchors: [Int])
    {
        var configuration = self.configuration
        configuration.clientHeight = calibration.clientHeight
        var calibrated: [String: PositionAnchor] = [:]
        for anchor in calibration.anchors(
            for: dataset, level: level, perSensor: true, modelReference: configuration.pathLoss.referencePower)
        {
            calibrated[PositionEstimator.anchorID(gateway: anchor.id)] = anchor
        }
        let estimator = try PositionEstimator(topology: topology, anchors: .gateways, configuration: configuration) { anchor in
            guard let fitted = calibrated[anchor.id] else { return anchor }
            var anchor = anchor
            anchor.rssiOffset = fitted.rssiOffset
            anchor.exponent = fitted.exponent
            return anchor
        }
        let sensorAnchors = try dataset.sensors.map { sensor in
            guard let anchor = estimator.anchorIndex(ofGateway: sensor.name) else {
                throw SimulationError.unsuitableTopology(
                    "'\(topology.name)' has no gateway '\(sensor.name)' for the dataset's sensor \(sensor.mac)")
            }
            return anchor
        }
        return (estimator, sensorAnchors)
    }

    /// Runs the estimator over a track's windows in order, one update per window. `sensorAnchors`
    /// maps the dataset's sensor indices to the estimator's anchors (default: the same indices).
    public func estimate(_ windows: [Window], with estimator: PositionEstimator, sensorAnchors: [Int]? = nil) -> [PositionEstimate?] {
        var state: PositionState? = nil
        var estimates: [PositionEstimate?] = []
        estimates.reserveCapacity(windows.count)
        for window in windows {
            let observations = window.sensors.indices.map { i in
                PositionObservation(
                    anchor: sensorAnchors?[window.sensors[i]] ?? window.sensors[i], rssi: window.rssi[i], count: window.counts[i])
            }
            let estimate = estimator.update(state, observations: observations, at: Date(timeIntervalSince1970: window.end))
            if let estimate { state = estimate.state }
            estimates.append(estimate)
        }
        return estimates
    }

    /// Runs every method on every track (or on the tracks named) and summarises the errors. With
    /// a `coordinator` venue of the room (`topology/tetam`), the same windows also go through a
    /// coordinator engine (``coordinatorErrors(_:venue:)``), uncalibrated and with the
    /// self-calibration's lines on its gateways.
    public func run(tracks selected: [String]? = nil, snapper: (any PositionSnapping)? = nil, coordinator topology: Topology? = nil) throws
        -> TetamReport
    {
        let calibration = try TetamCalibration.fit(
            dataset, tracks: trainingTracks, minimumRSSI: configuration.minimumRSSI, maximumRSSI: configuration.maximumRSSI)
        let calibrated = try estimator(calibration: calibration, perSensor: true, snapper: snapper)
        let uncalibrated = try estimator(calibration: calibration, perSensor: false)
        let selfCalibration = try TetamSelfCalibration.fit(self, tracks: trainingTracks)
        let selfCalibrated = try estimator(selfCalibration: selfCalibration)
        let coordinatorVenues =
            try topology.map { topology in
                [
                    ("coordinator-uncalibrated", try coordinatorVenue(topology: topology, selfCalibration: nil)),
                    ("coordinator-self-calibrated", try coordinatorVenue(topology: topology, selfCalibration: selfCalibration)),
                ]
            } ?? []
        let methodNames =
            ["weighted-centroid", "estimator-uncalibrated", "estimator", "estimator-self-calibrated"]
            + (snapper == nil ? [] : ["estimator-snapped"]) + coordinatorVenues.map(\.0)
        var errors: [String: [String: [Double]]] = [:]
        var rejected = 0
        var windowCount = 0
        let tracks = dataset.tracks.filter { selected?.contains($0.name) ?? true }
        if let selected, let unknown = selected.first(where: { name in !dataset.tracks.contains { $0.name == name } }) {
            throw SimulationError.invalidParameter(
                name: "track", reason: "no track named '\(unknown)' (known: \(dataset.tracks.map(\.name).joined(separator: ", ")))")
        }
        for track in tracks {
            let (windows, dropped) = self.windows(track)
            rejected += dropped
            windowCount += windows.count
            var perMethod: [String: [Double]] = [:]
            perMethod["weighted-centroid"] = windows.map { window in
                let p = weightedCentroid(window)
                return hypot(p.x - window.truthX, p.y - window.truthY)
            }
            for (name, estimator) in [
                ("estimator-uncalibrated", uncalibrated), ("estimator", calibrated), ("estimator-self-calibrated", selfCalibrated),
            ] {
                let estimates = estimate(windows, with: estimator)
                perMethod[name] = zip(windows, estimates).compactMap { window, estimate in
                    estimate.map { hypot($0.x - window.truthX, $0.y - window.truthY) }
                }
                if name == "estimator", snapper != nil {
                    perMethod["estimator-snapped"] = zip(windows, estimates).compactMap { window, estimate in
                        estimate?.snapped.map { hypot($0.x - window.truthX, $0.y - window.truthY) }
                    }
                }
            }
            for (name, venue) in coordinatorVenues {
                perMethod[name] = try coordinatorErrors(windows, venue: venue).compactMap { $0 }
            }
            errors[track.name] = perMethod
        }
        let trackNames = tracks.map(\.name)
        let heldOut = trackNames.filter { !trainingTracks.contains($0) }
        let methods = methodNames.map { method in
            TetamReport.Method(
                name: method,
                all: TetamReport.Summary(trackNames.flatMap { errors[$0]?[method] ?? [] }),
                heldOut: TetamReport.Summary(heldOut.flatMap { errors[$0]?[method] ?? [] }),
                tracks: trackNames.map { TetamReport.TrackSummary(track: $0, summary: TetamReport.Summary(errors[$0]?[method] ?? [])) })
        }
        return TetamReport(
            windowLength: windowLength, windows: windowCount, rejectedReadings: rejected,
            trainingTracks: trainingTracks, heldOutTracks: heldOut, calibration: calibration, methods: methods)
    }
}

extension TetamReplay {
    /// Plans regions from the calibrated estimator's estimates (``estimator(calibration:topology:)``) on a topology of the room
    /// (`topology/tetam`: the sensors as gateways, a grid of regions) and measures them against the
    /// camera truth. The beacon is heard by the gateways all the time, so a plan is made every
    /// window (as the coordinator would for a tag); an entry is a window whose true position is
    /// inside a region it was not inside the window before, covered when that region was in the
    /// set planned before the window.
    public func coverage(
        topology: Topology, planner configuration: PlannerConfiguration = PlannerConfiguration(), tracks selected: [String]? = nil
    ) throws -> TetamCoverage {
        let calibration = try TetamCalibration.fit(
            dataset, tracks: trainingTracks, minimumRSSI: self.configuration.minimumRSSI, maximumRSSI: self.configuration.maximumRSSI)
        guard let level = topology.levels.first?.id else { throw SimulationError.unsuitableTopology("'\(topology.name)' has no level") }
        var replay = self
        replay.level = level
        let (estimator, sensorAnchors) = try replay.estimator(calibration: calibration, topology: topology)
        let budget = min(configuration.budget, topology.budget ?? configuration.budget)
        var planning = configuration
        planning.budget = budget
        let planner = NearestPlanner(topology: topology, configuration: planning)
        let search = WalkingDistanceSearch(topology: topology)
        let placed = topology.regions.indices.filter { topology.regions[$0].position?.level == level }
        func inside(_ x: Double, _ y: Double) -> Set<Int> {
            Set(
                placed.filter { index in
                    let region = topology.regions[index]
                    let p = region.position!
                    return (p.x - x) * (p.x - x) + (p.y - y) * (p.y - y) <= region.radius * region.radius
                })
        }
        var entries = 0
        var covered = 0
        var overlapSum = 0.0
        var overlapCount = 0
        for track in dataset.tracks where selected?.contains(track.name) ?? true {
            let windows = self.windows(track).windows
            let estimates = replay.estimate(windows, with: estimator, sensorAnchors: sensorAnchors)
            var monitored: [Int] = []
            var previousInside = Set<Int>()
            for (number, (window, estimate)) in zip(windows, estimates).enumerated() {
                let insideNow = inside(window.truthX, window.truthY)
                let monitoredSet = Set(monitored)
                if number > 0 {
                    for region in insideNow.subtracting(previousInside) {
                        entries += 1
                        if monitoredSet.contains(region) { covered += 1 }
                    }
                    // The true nearest regions (walking distance from the true position).
                    if !monitored.isEmpty, let truth = try? topology.snap(VenuePoint(x: window.truthX, y: window.truthY, level: level)) {
                        let nearest = search.nearestRegions(from: truth, count: budget)
                        let hits = nearest.filter { monitoredSet.contains($0.region) }.count
                        overlapSum += Double(hits) / Double(max(nearest.count, 1))
                        overlapCount += 1
                    }
                }
                previousInside = insideNow
                guard let estimate, let snapped = try? topology.snap(VenuePoint(x: estimate.x, y: estimate.y, level: level)) else {
                    continue
                }
                let knownInside = Array(insideNow.filter { monitoredSet.contains($0) })
                let plan = planner.plan(
                    PlanRequest(
                        location: snapped, monitored: monitored, inside: knownInside, uncertainty: estimate.confidence,
                        now: Date(timeIntervalSince1970: window.end)), using: search)
                monitored = plan.regions.map(\.region)
            }
        }
        return TetamCoverage(
            budget: budget, entries: entries, covered: covered, nearestOverlap: overlapCount == 0 ? 0 : overlapSum / Double(overlapCount))
    }
}

/// Position error of each method on the tetam tracks, metres.
public struct TetamReport: Sendable, Codable {
    public struct Summary: Sendable, Codable, Hashable {
        public var windows: Int
        public var median: Double?
        public var p90: Double?

        public init(_ errors: [Double]) {
            windows = errors.count
            median = SimulationStatistics.median(errors)
            p90 = SimulationStatistics.percentile(errors, 90)
        }
    }

    public struct TrackSummary: Sendable, Codable, Hashable {
        public var track: String
        public var summary: Summary
    }

    public struct Method: Sendable, Codable {
        public var name: String
        public var all: Summary
        public var heldOut: Summary
        public var tracks: [TrackSummary]
    }

    public var windowLength: Double
    public var windows: Int
    public var rejectedReadings: Int
    public var trainingTracks: [String]
    public var heldOutTracks: [String]
    public var calibration: TetamCalibration
    public var methods: [Method]
    /// Coverage of the true nearest regions, when a topology of the room was given.
    public var coverage: TetamCoverage?

    /// The method with this name.
    public func method(_ name: String) -> Method? { methods.first { $0.name == name } }

    /// A readable table.
    public var text: String {
        func f(_ value: Double?) -> String { value.map { String(format: "%5.2f", $0) } ?? "    -" }
        var lines: [String] = []
        lines.append("tetam replay: \(windows) windows of \(windowLength) s, \(rejectedReadings) implausible readings dropped")
        lines.append("fitted on: \(trainingTracks.joined(separator: ", "))")
        lines.append("held out:  \(heldOutTracks.joined(separator: ", "))")
        lines.append("position error, metres        all: median   p90 | held-out: median   p90")
        for method in methods {
            let name = method.name.padding(toLength: 28, withPad: " ", startingAt: 0)
            lines.append(
                "  \(name)      \(f(method.all.median)) \(f(method.all.p90)) |           \(f(method.heldOut.median)) \(f(method.heldOut.p90))"
            )
        }
        lines.append("per track (median / p90):")
        for (index, track) in (methods.first?.tracks ?? []).enumerated() {
            let cells = methods.map { "\(f($0.tracks[index].summary.median))/\(f($0.tracks[index].summary.p90))" }
            let marker = trainingTracks.contains(track.track) ? "fit " : "held"
            lines.append("  \(marker) \(track.track.padding(toLength: 28, withPad: " ", startingAt: 0)) \(cells.joined(separator: "  "))")
        }
        if let coverage { lines.append(contentsOf: coverage.lines) }
        return lines.joined(separator: "\n")
    }
}

/// How well the regions planned from the estimates covered the regions the beacon truly entered.
public struct TetamCoverage: Sendable, Codable {
    public var budget: Int
    /// Region entries along the true paths, and how many found the region monitored.
    public var entries: Int
    public var covered: Int
    /// Mean share of the true nearest-`budget` regions that were in the monitored set, per window.
    public var nearestOverlap: Double

    public var coverage: Double? { entries == 0 ? nil : Double(covered) / Double(entries) }

    var lines: [String] {
        let share = coverage.map { String(format: "%.2f%%", $0 * 100) } ?? "-"
        return [
            "coverage of true region entries (budget \(budget)): \(covered)/\(entries) = \(share)",
            String(format: "mean share of the true nearest %d regions monitored: %.1f%%", budget, nearestOverlap * 100),
        ]
    }
}
