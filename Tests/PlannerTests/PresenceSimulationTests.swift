import Foundation
import Simulator
import TestSupport
import Testing
import Topology

/// Room presence as `simulate --offline --presence` measures it: the production engine, the room
/// filter against the room of the current estimate.
@Suite struct PresenceSimulationTests {
    /// Foreground phones on Westport House (45 rooms on 3 levels) with the `ios` family's beacons
    /// (true powers drawn from −80…−59 dBm, not the declared ones): the engine recalibrates as the
    /// coordinator's housekeeping does, so the powers their ranging shows are fitted and the
    /// estimates go by them; and the room filter changes room far less often than the estimate's
    /// room does.
    @Test func foregroundPhonesLearnTheBeaconsPowersAndTheFilterFlapsLess() async throws {
        let topology = try PlannerFixture.example("westport")
        let simulation = try PresenceSimulation(topology: topology, configuration: .init(clients: 3, duration: 300, seed: 1, kind: .phones))
        let report = try await simulation.run()
        let learned = try #require(report.learned)
        #expect(learned.fitted > 0, "\(learned.text)")
        #expect(learned.spread < learned.declaredSpread, "\(learned.text)")
        let filter = try #require(report.methods.first { $0.name == "room-filter" })
        let baseline = try #require(report.methods.first { $0.name == "estimate-room" })
        #expect(filter.room.visits >= 10)
        #expect(
            filter.room.falseChanges * 2 < baseline.room.falseChanges, "\(filter.room.falseChanges) against \(baseline.room.falseChanges)")
    }

    /// Tags report no learned radio: the gateways hear them, not the region beacons.
    @Test func tagsHaveNoLearnedRadio() async throws {
        let topology = try PlannerFixture.example("westport")
        let report = try await PresenceSimulation(topology: topology, configuration: .init(clients: 2, duration: 60, seed: 1, kind: .tags))
            .run()
        #expect(report.learned == nil)
        #expect(report.methods.map(\.name) == ["room-filter", "estimate-room"])
    }

    /// Walkers stay `pauses` seconds at each region: with a minute at each they make fewer, longer
    /// visits than passers-by, on the same seed, and the report says how long they paused.
    @Test func walkersPauseAsConfigured() async throws {
        let topology = try PlannerFixture.example("westport")
        func run(_ pauses: ClosedRange<Double>) async throws -> PresenceSimulation.Report {
            try await PresenceSimulation(topology: topology, configuration: .init(clients: 2, duration: 300, seed: 1, pauses: pauses)).run()
        }
        let passing = try await run(0...0)
        let staying = try await run(60...60)
        #expect(staying.pauses == 60...60)
        #expect(staying.text.contains("pausing 60 s at each region"), "\(staying.text)")
        #expect(staying.methods[1].room.visits < passing.methods[1].room.visits)
        #expect(throws: SimulationError.self) {
            try PresenceSimulation(topology: topology, configuration: .init(pauses: -1...5))
        }
    }

    /// The real recording (flat-walk, a robot-borne tag through a furnished flat): replayed through
    /// the engine, the filter changes room several times less often than the estimate's room.
    @Test(.requiresSharedData) func flatWalkReplayFlapsLessThanTheEstimate() throws {
        let topology = try PlannerFixture.example("flat-walk")
        let report = try FlatWalkPresence(directory: SharedData.url("datasets/flat-walk")).run(topology: topology)
        let filter = try #require(report.methods.first { $0.name == "room-filter" })
        let baseline = try #require(report.methods.first { $0.name == "estimate-room" })
        #expect(filter.room.seconds > 300, "the 366 s run")
        #expect(
            filter.room.falseChanges * 2 < baseline.room.falseChanges, "\(filter.room.falseChanges) against \(baseline.room.falseChanges)")
    }
}
