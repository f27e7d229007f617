import Foundation
import Planner
import Simulator
import TestSupport
import Testing
import Topology

/// DESIGN.md's planning-quality target on the example venues: "coverage ≥ 99.9 % with churn at most
/// half of the no-hysteresis baseline", measured by the offline simulation with its default phone
/// model (iOS background monitoring: 10 s awake after a monitored region's event, reports every
/// second while awake, `ranging` evidence) and the planner's default configuration.
///
/// A smaller run than `simulate --offline`'s default (10 clients × 15 min) so it stays short in a
/// debug build (the two venues run in parallel, about 20 s of CPU each); seeded with the default
/// seed, so the figures are the same on every run. Measured when written (4 clients × 10 min):
/// museum 100 % of 296 entries, churn ratio 0.49; mall 100 % of 252, ratio 0.47 (default size:
/// 0.47 on both). The museum sits close to the churn target: 0.50 at 3 clients × 8 min, 0.42 with
/// seed 2.
@Suite struct PlanningTargetTests {
    @Test("the planner meets the coverage and churn targets", arguments: ["museum", "mall"])
    func coverageAndChurnTargets(venue: String) throws {
        let topology = try Topology.load(directory: SharedData.packageRoot.appendingPathComponent("topology/\(venue)", isDirectory: true))
        let configuration = OfflineSimulation.Configuration(clients: 4, duration: 600, seed: 1, strategies: [.planner, .noHysteresis])
        let report = try OfflineSimulation(topology: topology, configuration: configuration).run()
        let planner = try #require(report.result(.planner))
        let baseline = try #require(report.result(.noHysteresis))
        #expect(planner.tally.entries >= 100, "\(venue): too few region entries (\(planner.tally.entries)) for a coverage figure")
        let coverage = try #require(planner.coverage)
        #expect(coverage >= 0.999, "\(venue): planner coverage \(coverage), missed \(planner.tally.missedRegions)")
        let churn = try #require(planner.tally.churnPer100m)
        let baselineChurn = try #require(baseline.tally.churnPer100m)
        #expect(baselineChurn > 0)
        #expect(
            churn <= baselineChurn / 2,
            "\(venue): planner churn \(churn) per 100 m against no-hysteresis \(baselineChurn): ratio \(churn / baselineChurn)")
    }
}
