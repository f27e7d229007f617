import Foundation
import Planner
import Simulator
import Testing
import Topology

/// The offline simulation's coverage and churn on walks small enough to work out by hand.
@Suite struct SimulationTests {
    /// Writes a venue directory and loads it.
    static func venue(levels: String = "id,elevation\nL0,0\n", regions: String, links: String) throws -> Topology {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("venue-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "name = handmade\nuuid = 2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6\n".write(
            to: directory.appendingPathComponent("venue.conf"), atomically: true, encoding: .utf8)
        try levels.write(to: directory.appendingPathComponent("levels.csv"), atomically: true, encoding: .utf8)
        try regions.write(to: directory.appendingPathComponent("regions.csv"), atomically: true, encoding: .utf8)
        try links.write(to: directory.appendingPathComponent("links.csv"), atomically: true, encoding: .utf8)
        return try Topology.load(directory: directory)
    }

    /// Three regions on a line, 10 m apart, radius 1 m: A (0, 0), B (10, 0), C (20, 0).
    static func line() throws -> Topology {
        try venue(
            regions: "id,x,y,level,radius,major,minor\nA,0,0,L0,1,1,1\nB,10,0,L0,1,1,2\nC,20,0,L0,1,1,3\n",
            links: "from,to\nA,B\nB,C\n")
    }

    /// Budget 1, true positions, no hysteresis, walking A → B → C at 1 m/s.
    ///
    /// By hand: the first plan (t = 0, at A) is {A}. Leaving A at x = 1.25 wakes the phone, which
    /// then re-plans every second; B's edge (9 − x) becomes nearer than A's (x − 1) after x = 5, so
    /// the plan at t = 6 swaps A for B (1 add, 1 remove). Entering B at t = 9 finds it monitored and
    /// keeps the phone awake; the plan at t = 16 swaps B for C; entering C at t = 19 finds it
    /// monitored. Entries 2, covered 2; adds + removes = 4 over 20 m: churn 20 per 100 m.
    @Test func coverageAndChurnOfAHandWorkedWalk() throws {
        let topology = try Self.line()
        let configuration = OfflineSimulation.Configuration(
            duration: 25, budget: 1, evidence: .truth, strategies: [.noHysteresis], wakeDuration: 10, reportInterval: 1, tick: 0.25)
        let simulation = try OfflineSimulation(topology: topology, configuration: configuration)
        let walker = try Walker(graph: simulation.graph, route: ["A", "B", "C"], speed: 1)
        let report = simulation.run(walkers: [walker])
        let tally = try #require(report.result(.noHysteresis)?.tally)
        #expect(tally.entries == 2)
        #expect(tally.covered == 2)
        #expect(tally.added == 2)
        #expect(tally.removed == 2)
        #expect(abs(tally.metresWalked - 20) < 1e-9)
        #expect(try #require(tally.churnPer100m) == 20)
        #expect(tally.coverage == 1)
    }

    /// The same walk with only 2 s of background time: the phone wakes on leaving A (t = 1.25),
    /// plans at t = 2 and 3 (still {A}), falls asleep at 3.25, and walks into B and then C
    /// unmonitored: no wake, no plan. Entries 2, covered 0, churn 0.
    @Test func aPhoneThatSleepsTooSoonMissesItsEntries() throws {
        let topology = try Self.line()
        let configuration = OfflineSimulation.Configuration(
            duration: 25, budget: 1, evidence: .truth, strategies: [.noHysteresis], wakeDuration: 2, reportInterval: 1, tick: 0.25)
        let simulation = try OfflineSimulation(topology: topology, configuration: configuration)
        let report = simulation.run(walkers: [try Walker(graph: simulation.graph, route: ["A", "B", "C"], speed: 1)])
        let tally = try #require(report.result(.noHysteresis)?.tally)
        #expect(tally.entries == 2)
        #expect(tally.covered == 0)
        #expect(tally.coverage == 0)
        #expect(tally.added + tally.removed == 0)
        #expect(tally.missedRegions == ["B", "C"])
    }

    /// Straight-line distance goes through floors: from A, the region right above (U, 4 m up) is
    /// "nearer" than F on the same floor, though walking there takes the stairs.
    @Test func straightLineBaselineLooksThroughFloors() throws {
        let topology = try Self.venue(
            levels: "id,elevation\nL0,0\nL1,4\n",
            regions: "id,x,y,level,radius,major,minor\nA,0,0,L0,1,1,1\nF,6,0,L0,1,1,2\nS,30,0,L0,1,1,3\nU,0,0,L1,1,2,1\nT,30,0,L1,1,2,2\n",
            links: "from,to,distance,kind\nA,F,,walk\nF,S,,walk\nS,T,8,stairs\nT,U,,walk\n")
        let configuration = OfflineSimulation.Configuration(duration: 10, budget: 2, evidence: .truth)
        let simulation = try OfflineSimulation(topology: topology, configuration: configuration)
        let here = VenuePoint(x: 0, y: 0, level: "L0")
        #expect(simulation.straightLineNearest(here) == ["A", "U"])
        let plan = RegionPlanner(topology: topology, configuration: .withoutHysteresis(budget: 2)).plan(
            PlanRequest(location: try topology.snap(here), now: Date()))
        #expect(plan.ids == ["A", "F"])
    }

    /// A grid venue (6 × 4 regions, 5 m apart) for whole-simulation properties.
    static func grid() throws -> Topology {
        var regions = "id,x,y,level,radius,major,minor\n"
        var links = "from,to\n"
        for i in 0..<6 {
            for j in 0..<4 {
                regions += "r\(i)-\(j),\(i * 5),\(j * 5),L0,2,1,\(i * 10 + j)\n"
                if i < 5 { links += "r\(i)-\(j),r\(i + 1)-\(j)\n" }
                if j < 3 { links += "r\(i)-\(j),r\(i)-\(j + 1)\n" }
            }
        }
        return try venue(regions: regions, links: links)
    }

    @Test func theSameSeedGivesTheSameReport() throws {
        let topology = try Self.grid()
        func report(seed: UInt64) throws -> Data {
            let simulation = try OfflineSimulation(
                topology: topology, configuration: .init(clients: 2, duration: 90, seed: seed, budget: 8))
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            return try encoder.encode(simulation.run())
        }
        let first = try report(seed: 7)
        #expect(first == (try report(seed: 7)))
        #expect(first != (try report(seed: 8)))
    }

    @Test func simulatedWalksAreCoveredAndTheEstimatorTracksThem() throws {
        let topology = try Self.grid()
        let simulation = try OfflineSimulation(topology: topology, configuration: .init(clients: 2, duration: 120, seed: 3, budget: 10))
        let report = simulation.run()
        let planner = try #require(report.result(.planner))
        #expect(planner.tally.entries > 10)
        #expect(planner.tally.metresWalked > 100)
        #expect(try #require(planner.coverage) > 0.9)
        let median = try #require(report.positionError.median)
        #expect(median < 3, "median position error \(median) m on simulated radio")
    }

    @Test func walkersStayOnTheGraphAndWalkAtWalkingSpeed() throws {
        let topology = try Self.grid()
        let graph = try WalkGraph(topology: topology)
        var walker = Walker(graph: graph, seed: 42, speedRange: 1.0...1.5, pauseRange: 0...0)
        for _ in 0..<200 {
            let before = walker.distanceWalked
            walker.advance(by: 0.5)
            let step = walker.distanceWalked - before
            #expect(step <= 0.75 + 1e-9)
            // On the grid's links: x or y is a multiple of 5.
            let p = walker.position
            #expect(abs(p.x / 5 - (p.x / 5).rounded()) < 1e-9 || abs(p.y / 5 - (p.y / 5).rounded()) < 1e-9)
        }
        #expect(walker.distanceWalked > 100)
    }
}
