import Foundation
import Planner

/// Self-calibration on the coordinator's actor: refits on the housekeeping tick, persisted to
/// the state store, served at `GET /api/calibration`.
extension CoordinatorCore {
    /// Refits when due (``CoordinatorCalibration/interval``) and writes the fit to the store.
    func calibrateIfDue(now: Int64) {
        guard let fit = engine.recalibrateIfDue(now: now) else { return }
        do {
            try store?.saveCalibration(fit, fitted: now)
        } catch {
            log.warning("\(error)", source: "state-store")
        }
    }

    /// The calibration as `GET /api/calibration` shows it.
    public func calibration() -> CalibrationSnapshot { engine.calibrationSnapshot }

    /// Applies the fit stored by a previous run (called once, from `init`).
    static func restoreCalibration(_ store: StateStore?, into engine: CoordinatorEngine) {
        guard let stored = try? store?.loadCalibration() else { return }
        engine.restore(stored.fit, fitted: stored.fitted)
    }
}
