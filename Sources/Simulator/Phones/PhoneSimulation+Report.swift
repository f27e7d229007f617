import Foundation

extension PhoneSimulation.Report {
    /// A readable table: per strategy, coverage of arrivals, churn and wakes per 100 m.
    public var text: String {
        let metres = strategies.first?.tally.metresWalked ?? 0
        var lines = [
            "venue \(venue): \(clients) phones × \(Int(duration)) s, \(Int(metres.rounded())) m walked, seed \(seed), budget \(budget) of iOS's 20 slots (the rest are the app's own)",
            "phones \(mode.rawValue): iOS's rules (enter at first detection, exit 30 s after the last, no enter when added in range); coverage counts arrivals within a region's radius",
            "strategy      coverage  arrivals  missed  churn/100m  wakes/100m",
        ]
        for result in strategies {
            let t = result.tally
            let coverage = t.coverage.map { String(format: "%7.2f%%", $0 * 100) } ?? "      -"
            let churn = t.churnPer100m.map { String(format: "%10.1f", $0) } ?? "         -"
            let wakes = metres > 0 ? String(format: "%10.1f", Double(t.wakes) * 100 / metres) : "         -"
            let name = result.strategy.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            lines.append(
                "\(name) \(coverage) \(String(format: "%9d", t.entries)) \(String(format: "%7d", t.entries - t.covered)) \(churn)  \(wakes)"
            )
        }
        for result in strategies { lines.append("  \(result.strategy.rawValue): \(result.strategy.summary)") }
        return lines.joined(separator: "\n")
    }
}
