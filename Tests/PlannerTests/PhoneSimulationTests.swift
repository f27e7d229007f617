import Foundation
import Testing
import Topology

@testable import Simulator

/// Phones under iOS's rules: the strategies compared on the same walks.
@Suite struct PhoneSimulationTests {
    /// A suspended phone on the museum, located by what it ranges while awake: the frontier
    /// planner covers more arrivals than nearest-N, which covers more than never rotating.
    @Test func suspendedPhonesOnTheMuseum() throws {
        let topology = try PlannerFixture.example("museum")
        let simulation = try PhoneSimulation(
            topology: topology, configuration: .init(clients: 3, duration: 300, seed: 1, strategies: [.frontier, .nearest, .firstSet]))
        let report = simulation.run()
        let coverage = Dictionary(uniqueKeysWithValues: report.strategies.map { ($0.strategy, $0.tally.coverage ?? 0) })
        #expect(report.strategies.allSatisfy { $0.tally.entries > 50 }, "\(report.strategies.map(\.tally.entries))")
        #expect(coverage[.frontier]! > coverage[.nearest]!, "\(coverage)")
        #expect(coverage[.nearest]! >= coverage[.firstSet]!, "\(coverage)")
        #expect(report.strategies.allSatisfy { $0.tally.wakes > 0 })
    }

    @Test func iOSReportsEnterOnFirstDetectionAndExitThirtySecondsAfterTheLast() {
        var ios = IOSRegionMonitoring(slots: 20, appRegions: 2)
        #expect(ios.budget == 18)
        ios.apply([1, 2], now: 0)
        #expect(ios.step(detected: [1], now: 1) == [.enter(1)])
        #expect(ios.step(detected: [1], now: 2).isEmpty)
        #expect(ios.step(detected: [], now: 31).isEmpty)
        #expect(ios.step(detected: [], now: 32) == [.exit(1)])
        // Added while detected: inside without an enter.
        _ = ios.step(detected: [3], now: 40)
        ios.apply([1, 2, 3], now: 40.5)
        #expect(ios.inside.contains(3))
        #expect(ios.step(detected: [3], now: 41).isEmpty)
        // Past the budget, adds are refused.
        ios.apply(Array(0..<30), now: 50)
        #expect(ios.held.count == 18)
    }
}
