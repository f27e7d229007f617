import Foundation

/// The offline simulation's quality report: coverage and churn per strategy, and the estimator's
/// position error on the simulated walks.
public struct SimulationReport: Sendable, Codable {
    public struct StrategyResult: Sendable, Codable {
        public var strategy: OfflineSimulation.Strategy
        public var summary: String
        public var tally: SimulationTally
        /// Share of region entries that found the region monitored.
        public var coverage: Double?
        /// Adds plus removes per 100 m walked.
        public var churnPer100m: Double?

        public init(strategy: OfflineSimulation.Strategy, tally: SimulationTally) {
            self.strategy = strategy
            self.summary = strategy.summary
            self.tally = tally
            self.coverage = tally.coverage
            self.churnPer100m = tally.churnPer100m
        }
    }

    public var venue: String
    public var regions: Int
    public var clients: Int
    /// Simulated seconds per client.
    public var duration: Double
    public var seed: UInt64
    public var budget: Int
    public var evidence: OfflineSimulation.Evidence
    public var wakeDuration: Double
    public var reportInterval: Double
    /// The `planner` strategy's hysteresis settings.
    public struct Hysteresis: Sendable, Codable, Hashable {
        public var margin: Int
        public var swapThreshold: Double
        public var guardDistance: Double
    }
    public var hysteresis: Hysteresis
    public var strategies: [StrategyResult]
    /// Estimate vs truth at each report, metres (same-level estimates only).
    public var positionError: TetamReport.Summary
    /// Reports whose estimate was on another level than the walker.
    public var levelMismatches: Int

    /// The result of one strategy.
    public func result(_ strategy: OfflineSimulation.Strategy) -> StrategyResult? { strategies.first { $0.strategy == strategy } }

    /// The target of DESIGN.md: the planner's coverage ≥ 99.9% and its churn at most half the
    /// no-hysteresis baseline's. `nil` when either strategy was not run.
    public var meetsTarget: Bool? {
        guard let planner = result(.planner), let baseline = result(.noHysteresis),
            let coverage = planner.coverage, let churn = planner.churnPer100m, let baselineChurn = baseline.churnPer100m
        else { return nil }
        return coverage >= 0.999 && churn <= baselineChurn / 2
    }

    /// A readable table.
    public var text: String {
        var lines: [String] = []
        let metres = strategies.first?.tally.metresWalked ?? 0
        lines.append(
            "venue \(venue): \(regions) regions, budget \(budget), \(clients) clients × \(Self.format(duration, 0)) s, \(Self.format(metres, 0)) m walked, seed \(seed)"
        )
        lines.append(
            "evidence: \(evidence.rawValue); the phone wakes \(Self.format(wakeDuration, 0)) s on an event of a monitored region and reports every \(Self.format(reportInterval, 1)) s while awake"
        )
        lines.append(
            "planner hysteresis: margin \(hysteresis.margin), swap threshold \(Self.format(hysteresis.swapThreshold, 1)) m, guard distance \(Self.format(hysteresis.guardDistance, 1)) m"
        )
        lines.append("strategy          coverage   entries  missed   adds  removes  churn/100m   plans  wakes")
        for result in strategies {
            let t = result.tally
            let coverage = result.coverage.map { String(format: "%8.3f%%", $0 * 100) } ?? "       -"
            let churn = result.churnPer100m.map { String(format: "%10.2f", $0) } ?? "         -"
            lines.append(
                "\(result.strategy.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(coverage) \(pad(t.entries, 9)) \(pad(t.entries - t.covered, 7)) \(pad(t.added, 6)) \(pad(t.removed, 8)) \(churn) \(pad(t.plans, 7)) \(pad(t.wakes, 6))"
            )
        }
        if let median = positionError.median, let p90 = positionError.p90 {
            lines.append(
                String(
                    format: "position error at reports: median %.2f m, p90 %.2f m over %d reports; %d on the wrong level", median, p90,
                    positionError.windows, levelMismatches))
        }
        if let planner = result(.planner), let baseline = result(.noHysteresis), let churn = planner.churnPer100m,
            let baseChurn = baseline.churnPer100m, baseChurn > 0,
            let coverage = planner.coverage
        {
            // Each half of the target judged on its own, then both together.
            let churnMet = churn <= baseChurn / 2
            let coverageMet = coverage >= 0.999
            lines.append(
                String(
                    format:
                        "planner churn / no-hysteresis churn = %.2f (target ≤ 0.50: %@); planner coverage %.3f%% (target ≥ 99.9%%: %@); target %@",
                    churn / baseChurn, churnMet ? "met" : "NOT met", coverage * 100, coverageMet ? "met" : "NOT met",
                    churnMet && coverageMet ? "met" : "NOT met"))
        } else if result(.planner) != nil {
            lines.append("planner target: not measured (needs the planner and no-hysteresis strategies, with walking and entries)")
        }
        for result in strategies where !result.tally.missedRegions.isEmpty {
            lines.append(
                "\(result.strategy.rawValue) missed (first \(result.tally.missedRegions.count)): \(result.tally.missedRegions.joined(separator: " "))"
            )
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}

private func pad(_ value: Int, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
}
