import Coordinator
import Foundation
import MQTT
import Planner
import TestSupport
import Testing
import Topology
import WireProtocol

/// The coordinator plans with the frontier planner unless told `--planner nearest`.
@Suite("Coordinator planner choice")
struct PlannerChoiceTests {
    let topics = TestVenue.topics

    @Test("the frontier planner by default, nearest-N when chosen; the two plan differently for the same phone")
    func defaultAndChoice() throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let frontier = try CoordinatorVenue(topology: topology, budget: 20)
        let nearest = try CoordinatorVenue(topology: topology, budget: 20, planner: .nearest)
        #expect(frontier.plannerChoice == .frontier && frontier.planner is FrontierPlanner)
        #expect(nearest.plannerChoice == .nearest && nearest.planner is NearestPlanner)
        let configuration = try CoordinatorConfiguration(
            broker: try BrokerURL(parsing: "mqtt://127.0.0.1:1883"), topologyDirectory: CoordinatorHarness.museum, topics: topics)
        #expect(configuration.planner == .frontier)
        // One phone waking at corridor-3 (its enter, and the beacon ranged close by), both planners.
        let uuid = topology.regions[try #require(topology.regionIndex(id: "corridor-3"))].identity.uuidString
        let report = ClientReport(
            ranged: [RangedBeacon(uuid: uuid, major: 1, minor: 20, rssi: -72)], events: [RegionEvent(type: .enter, region: "corridor-3")])
        var sets: [PlannerChoice: Set<String>] = [:]
        for venue in [frontier, nearest] {
            let engine = CoordinatorEngine(venue: venue)
            try engine.feed(topics.clientReport(try Identifier("p")), report, at: 0)
            sets[venue.plannerChoice] = Set(try #require(engine.step(at: 0).regionsMessages.first?.1).regions.map(\.id))
        }
        #expect(sets[.frontier] != sets[.nearest])
    }

    @Test("`--planner` accepts frontier and nearest only", .requiresBeaconFleetBinary)
    func commandLine() async throws {
        let binary = try #require(BuiltProduct.beaconfleet)
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "coordinator", "--broker", "mqtt://127.0.0.1:1", "--topology", CoordinatorHarness.museum.path, "--planner", "farthest",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let status = await process.exited()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status != 0)
        #expect(text.contains("--planner farthest: expected frontier or nearest"), "\(text)")
    }
}
