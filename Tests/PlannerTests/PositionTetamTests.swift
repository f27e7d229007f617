import Foundation
import Planner
import Simulator
import TestSupport
import Testing
import Topology

/// The estimator on real radio: tetam tracks replayed as twelve gateways' sightings, compared with
/// the camera truth. The calibration is fitted on the default training tracks; the assertions are
/// on two held-out tracks.
@Suite struct PositionTetamTests {
    static let directory = SharedData.url("datasets/tetam-tracks")
    static var available: Bool { FileManager.default.fileExists(atPath: directory.appendingPathComponent("cnf/tetam.dev").path) }
    static let missingMessage = "\(directory.path) is absent: set BEACONFLEET_SHARED_DATA to run it"
    static let heldOut = ["straight_05", "zigzagging_with_rotation"]

    @Test(.requires(PositionTetamTests.available, PositionTetamTests.missingMessage))
    func estimatorBeatsTheCentroidAndMeetsTheTargetOnHeldOutTracks() async throws {
        try await heavyWork {
            let dataset = try TetamDataset.load(directory: Self.directory)
            #expect(dataset.sensors.count == 12)
            let replay = TetamReplay(dataset: dataset)
            #expect(Self.heldOut.allSatisfy { !replay.trainingTracks.contains($0) })
            let report = try replay.run(tracks: Self.heldOut)
            let centroid = try #require(report.method("weighted-centroid")?.all)
            let estimator = try #require(report.method("estimator")?.all)
            let median = try #require(estimator.median)
            let p90 = try #require(estimator.p90)
            #expect(estimator.windows > 200)
            #expect(median <= 1.5, "median error \(median) m")
            #expect(p90 <= 2.6, "p90 error \(p90) m")
            let centroidMedian = try #require(centroid.median)
            let centroidP90 = try #require(centroid.p90)
            #expect(median < centroidMedian / 1.5)
            #expect(p90 < centroidP90 / 1.5)
        }
    }

    @Test(.requires(PositionTetamTests.available, PositionTetamTests.missingMessage))
    func theCoverageReplayRunsTheTopologysEstimatorWithTheCalibration() throws {
        let dataset = try TetamDataset.load(directory: Self.directory)
        let replay = TetamReplay(dataset: dataset)
        let topology = try Topology.load(directory: SharedData.packageRoot.appendingPathComponent("topology/tetam", isDirectory: true))
        let calibration = try TetamCalibration.fit(dataset, tracks: replay.trainingTracks)
        let (estimator, sensorAnchors) = try replay.estimator(calibration: calibration, topology: topology)
        #expect(estimator.anchors.count == topology.gateways.count)
        for (index, sensor) in dataset.sensors.enumerated() {
            let anchor = estimator.anchors[sensorAnchors[index]]
            #expect(anchor.id == PositionEstimator.anchorID(gateway: sensor.name))
            #expect(
                abs(anchor.rssiOffset - (calibration.referencePower[index] - replay.configuration.pathLoss.referencePower)) < 1e-9,
                "\(sensor.name)'s fitted 1 m power")
            #expect(anchor.exponent == calibration.exponent[index])
        }
        // The calibrated estimates on the room's graph meet the position target on a held-out track.
        let windows = replay.windows(try #require(dataset.track(named: "straight_05"))).windows
        let errors = zip(windows, replay.estimate(windows, with: estimator, sensorAnchors: sensorAnchors)).compactMap { window, estimate in
            estimate.map { hypot($0.x - window.truthX, $0.y - window.truthY) }
        }.sorted()
        #expect(errors.count == windows.count)
        #expect(errors[errors.count / 2] <= 1.5, "median error \(errors[errors.count / 2]) m")
    }

    @Test(.requires(PositionTetamTests.available, PositionTetamTests.missingMessage))
    func malformedTrackLinesAreNamedByFileAndLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tetam-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("cnf"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("trk"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in ["cnf/tetam.dev", "cnf/tetam.par"] {
            try FileManager.default.copyItem(at: Self.directory.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        let good = "1581249601.40,b827eb4521b4,e78f135624ce,-87,18.031,8.465,1.816,0,0,0,0,0,0,0,0,0\n"
        try (good + "1581249601.41,b827eb4521b4,e78f135624ce,loud,18.031,8.465,1.816\n")
            .write(to: directory.appendingPathComponent("trk/bad_all_sensors.mbd"), atomically: true, encoding: .utf8)
        #expect {
            try TetamDataset.load(directory: directory)
        } throws: { error in
            guard case SimulationError.malformed(let file, let line, let reason) = error else { return false }
            return file.hasSuffix("bad_all_sensors.mbd") && line == 2 && reason.contains("RSSI")
        }
    }
}
