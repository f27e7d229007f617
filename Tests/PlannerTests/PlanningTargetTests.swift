import Foundation
import Planner
import Simulator
import TestSupport
import Testing
import Topology

/// The frontier planner's coverage of arrivals, measured as `simulate --offline` measures it: phones
/// drawn from IOS.md's family (``PhoneFamily/ios``: beacon powers, radios and iOS timings the
/// coordinator is not told), suspended and in the foreground. A guard on today's figures, not the
/// targets: the 99 % suspended and 99.5 % foreground are not met on this family (the
/// figures and why: docs/benchmarks.md); the floors lie about a point below what this run
/// measured when written, so a change that loses coverage fails here.
///
/// A smaller run than `simulate --offline`'s default (10 phones × 15 min) so it stays short in a
/// debug build; seeded, so the figures are the same on every run. Measured when written
/// (5 phones × 10 min, seed 1): museum 98.2 % suspended, 99.7 % foreground; mall 99.7 % and 99.3 %;
/// nearest-N 33–66 %.
@Suite struct PlanningTargetTests {
    @Test(
        "the frontier planner covers the arrivals of suspended and foreground phones",
        arguments: [("museum", 0.97, 0.985), ("mall", 0.985, 0.98)])
    func coverageTargets(venue: String, suspendedFloor: Double, foregroundFloor: Double) async throws {
        let topology = try Topology.load(directory: SharedData.packageRoot.appendingPathComponent("topology/\(venue)", isDirectory: true))
        for (mode, floor) in [(PhoneSimulation.Mode.suspended, suspendedFloor), (.foreground, foregroundFloor)] {
            let configuration = PhoneSimulation.Configuration(
                clients: 5, duration: 600, seed: 1, mode: mode, strategies: [.frontier, .nearest], family: .ios)
            let report = await (try PhoneSimulation(topology: topology, configuration: configuration)).run()
            let frontier = try #require(report.strategies.first { $0.strategy == .frontier }?.tally)
            let nearest = try #require(report.strategies.first { $0.strategy == .nearest }?.tally)
            #expect(frontier.entries >= 200, "\(venue) \(mode): too few arrivals (\(frontier.entries)) for a coverage figure")
            let coverage = try #require(frontier.coverage)
            #expect(coverage >= floor, "\(venue) \(mode): frontier coverage \(coverage), missed \(frontier.missedRegions)")
            #expect(coverage > (nearest.coverage ?? 1), "\(venue) \(mode): nearest-N covers \(nearest.coverage ?? 0)")
        }
    }
}
