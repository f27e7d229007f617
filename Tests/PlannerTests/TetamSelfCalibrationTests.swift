import Foundation
import Planner
import Simulator
import TestSupport
import Testing

/// Issue 17: lines fitted on the tetam sightings without the camera truth, jointly with the
/// positions, through the tetam room's estimator (velocity tracked, see docs/calibration.md).
/// Measured (fitted on the default four tracks' sightings): median / p90 1.44 / 2.82 m on all nine
/// tracks, 1.49 / 2.83 m on the five held out, against 2.22 / 4.07 m uncalibrated (2.01 / 3.57 m
/// with the filter that does not track a velocity); the targets are 1.5 / 3 m.
@Suite struct TetamSelfCalibrationTests {
    @Test(.requires(PositionTetamTests.available, PositionTetamTests.missingMessage))
    func selfCalibrationWithoutTruthBeatsTheUncalibratedLine() async throws {
        try await heavyWork {
            let replay = TetamReplay(dataset: try TetamDataset.load(directory: PositionTetamTests.directory))
            let fit = try TetamSelfCalibration.fit(replay, tracks: replay.trainingTracks)
            #expect(fit.exponents.allSatisfy { (1.5...4.5).contains($0) })
            let report = try replay.run()
            let selfCalibrated = try #require(report.method("estimator-self-calibrated")?.all)
            let uncalibrated = try #require(report.method("estimator-uncalibrated")?.all)
            let median = try #require(selfCalibrated.median)
            let p90 = try #require(selfCalibrated.p90)
            #expect(median <= 1.5, "median \(median) m")
            #expect(p90 <= 2.9, "p90 \(p90) m")
            #expect(p90 < (uncalibrated.p90 ?? 0) - 0.3, "p90 \(p90) m against \(uncalibrated.p90 ?? 0) m uncalibrated")
            let heldOut = try #require(report.method("estimator-self-calibrated")?.heldOut)
            #expect(heldOut.windows > 300)
            #expect(try #require(heldOut.median) <= 1.5, "held-out median \(heldOut.median ?? 0) m")
            #expect(try #require(heldOut.p90) <= 2.9, "held-out p90 \(heldOut.p90 ?? 0) m")
        }
    }
}
