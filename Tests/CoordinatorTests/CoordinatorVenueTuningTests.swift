import BeaconKit
import Foundation
import Planner
import Simulator
import TestSupport
import Testing
import Topology
import WireProtocol

@testable import Coordinator

/// The coordinator builds its estimator from the venue: its radio and `venue.conf`'s
/// `walking-speed`, `velocity-gain` and `anchors-per-estimate`; venues that set none estimate as before.
@Suite struct CoordinatorVenueTuningTests {
    static func venue(_ name: String) throws -> Topology {
        try Topology.load(directory: SharedData.packageRoot.appendingPathComponent("topology/\(name)", isDirectory: true))
    }

    @Test func venuesWithoutTuningKeepTheEstimatorDefaults() throws {
        for name in ["museum", "mall"] {
            let topology = try Self.venue(name)
            let radio = topology.radio
            let before = PositionEstimatorConfiguration(
                pathLoss: LogDistanceModel(referencePower: Double(radio.measuredPower), exponent: radio.pathLossExponent),
                shadowingSigma: radio.shadowing, offsetFloor: radio.sensitivity + 2 * radio.shadowing)
            let venue = try CoordinatorVenue(topology: topology, budget: 20)
            #expect(venue.estimator.configuration == before, "\(name)")
            #expect(venue.estimator.configuration.velocityGain == 0)
        }
    }

    @Test func theTetamRoomsFilterReachesTheCoordinator() throws {
        let topology = try Self.venue("tetam")
        let configuration = try CoordinatorVenue(topology: topology, budget: 20).estimator.configuration
        #expect(configuration.walkingSpeed == 1.2)
        #expect(configuration.velocityGain == 0.1)
        #expect(configuration.shadowingSigma == 6)
        // An explicit configuration still wins over the venue's.
        #expect(try CoordinatorVenue(topology: topology, budget: 20, estimator: .init()).estimator.configuration.velocityGain == 0)
        // One place for the room's numbers: the replay's configuration is the venue's.
        #expect(TetamReplay.configuration(topology: topology) == TetamReplay.defaultConfiguration)
    }

    /// Every one of the tetam room's 12 gateways hears the tag in one window: with the room's
    /// `anchors-per-estimate = 12` the engine keeps all twelve readings for the estimate; without
    /// the key, the default eight strongest.
    @Test func anchorsPerEstimateBoundsTheReadingsKept() throws {
        let tetam = SharedData.packageRoot.appendingPathComponent("topology/tetam", isDirectory: true)
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("tetam-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.copyItem(at: tetam, to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let conf = copy.appendingPathComponent("venue.conf")
        let text = try String(contentsOf: conf, encoding: .utf8)
        #expect(text.contains("anchors-per-estimate = 12"))
        try text.replacingOccurrences(of: "anchors-per-estimate = 12", with: "").write(to: conf, atomically: true, encoding: .utf8)
        for (directory, kept) in [(tetam, 12), (copy, 8)] {
            let topology = try Topology.load(directory: directory)
            let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
            let encoder = WireCoding.makeEncoder()
            let now: Int64 = 1_800_000_000_000
            for (g, gateway) in topology.gateways.enumerated() {
                let sighting = Sighting(
                    format: "ibeacon", uuid: LiveSimulation.Configuration.tagUUID, major: 1, minor: 1, address: "5A:1D:00:00:00:01",
                    rssi: Double(-60 - g), rssiMax: -60 - g, count: 2, txPower: -59)
                let batch = SightingsBatch(
                    gateway: gateway.id, seq: 1, start: Date(timeIntervalSince1970: 1_799_999_999),
                    end: Date(timeIntervalSince1970: 1_800_000_000),
                    sightings: [sighting])
                let payload = try encoder.encode(batch)
                try engine.handle(
                    topic: TestVenue.topics.sightings(try #require(Identifier(validating: gateway.id))), payload: Array(payload), now: now)
            }
            #expect(
                engine.clientIDs.compactMap { engine.withClient($0) { $0.observations.count } } == [kept], "\(directory.lastPathComponent)")
            engine.flush(now: now)
            #expect(engine.clientCount == 1)
        }
    }
}
