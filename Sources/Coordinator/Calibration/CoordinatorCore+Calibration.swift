import Foundation
import Logging
import Planner

/// Self-calibration on the coordinator's actor: refits on the housekeeping tick, persisted to
/// the state store, served at `GET /api/calibration`.
extension CoordinatorCore {
    /// Refits when due (``CoordinatorCalibration/interval``) and writes the fits to the store.
    func calibrateIfDue(now: Int64) {
        let attempted = engine.calibration.lastAttempt
        let fit = engine.recalibrateIfDue(now: now)
        guard engine.calibration.lastAttempt != attempted else { return }
        do {
            if let fit { try store?.saveCalibration(fit, fitted: now) }
            if let ranged = engine.calibration.ranged?.fits, !ranged.isEmpty { try store?.saveRangedRadio(ranged, fitted: now) }
        } catch {
            log.warning("\(error)", source: "state-store")
        }
    }

    /// The calibration as `GET /api/calibration` shows it.
    public func calibration() -> CalibrationSnapshot { engine.calibrationSnapshot }

    /// Applies the fits stored by a previous run (called once, from `init`); a row that cannot be
    /// read is logged and left for the next refit to replace.
    static func restoreCalibration(_ store: StateStore?, into engine: CoordinatorEngine, logger: Logger) {
        do {
            if let stored = try store?.loadCalibration() { engine.restore(stored.fit, fitted: stored.fitted) }
        } catch {
            logger.warning("\(error)", metadata: ["source": "state-store"])
        }
        do {
            if let ranged = try store?.loadRangedRadio() { engine.restoreRanged(ranged) }
        } catch {
            logger.warning("\(error)", metadata: ["source": "state-store"])
        }
    }
}
