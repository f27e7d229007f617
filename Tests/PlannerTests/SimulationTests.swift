import Foundation
import Planner
import Simulator
import Testing
import Topology

/// The offline simulation's walkers and its determinism.
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

    /// The phones run on actors (RegionSync's applier, the fake iOS), but one step at a time:
    /// the same seed gives the same report, another seed another one.
    @Test func theSameSeedGivesTheSameReport() async throws {
        let topology = try Self.grid()
        func run(_ seed: UInt64) async throws -> PhoneSimulation.Report {
            await (try PhoneSimulation(topology: topology, configuration: .init(clients: 2, duration: 120, seed: seed))).run()
        }
        let first = try await run(5)
        #expect(try await run(5) == first)
        #expect(try await run(6) != first)
        #expect(first.strategies.allSatisfy { $0.tally.entries > 0 })
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
