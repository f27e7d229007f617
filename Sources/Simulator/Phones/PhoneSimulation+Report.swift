import Foundation

extension PhoneSimulation.LearnedRadio {
    /// One line: how many beacons' powers the phones' ranging fitted, and how far from the truth
    /// the fitted and the declared powers are.
    public var text: String {
        guard fitted > 0 else { return "radio learned from the phones' ranging: no region's beacon fitted yet (\(regions) with reports)" }
        return "radio learned from the phones' ranging: \(fitted) of \(regions) regions' beacons fitted; fitted − true power "
            + String(format: "%+.1f dB (sd %.1f), declared − true %+.1f dB (sd %.1f)", bias, spread, declaredBias, declaredSpread)
    }
}

extension PhoneSimulation.Report {
    /// A readable report: per strategy, coverage of arrivals, churn and wakes per 100 m over all
    /// phones; then, when the phones' conditions differ, each phone's condition and coverage, and
    /// the median and worst phone per strategy.
    public var text: String {
        let metres = strategies.first?.tally.metresWalked ?? 0
        let slots = budget.fewest == budget.most ? "budget \(budget.fewest)" : "budget \(budget.fewest)–\(budget.most)"
        var lines = [
            "venue \(venue): \(clients) phones × \(Int(duration)) s, \(Int(metres.rounded())) m walked, seed \(seed), \(slots) of iOS's 20 slots (the rest are the app's own)",
            "phones \(mode.rawValue): iOS's rules (enter at a detection, exit after the last, no enter when added in range), each phone's radio and timings drawn from its family; coverage counts arrivals within a region's radius",
            "strategy      coverage  arrivals  missed  churn/100m  wakes/100m",
        ]
        for result in strategies {
            let t = result.tally
            let name = result.strategy.rawValue.padding(toLength: 12, withPad: " ", startingAt: 0)
            lines.append(
                "\(name) \(Self.percent(t.coverage)) \(String(format: "%9d", t.entries)) \(String(format: "%7d", t.entries - t.covered)) \(Self.churn(t))  \(Self.wakes(t))"
            )
        }
        for result in strategies { lines.append("  \(result.strategy.rawValue): \(result.strategy.summary)") }
        if let learned { lines.append(learned.text) }
        guard Set(phones.map(\.condition)).count > 1 else { return lines.joined(separator: "\n") }

        lines.append("")
        lines.append("per phone (its condition, drawn from the family; coverage per strategy):")
        let names = strategies.map { $0.strategy.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0) }
        lines.append("phone  arrivals  " + names.joined(separator: " ") + "  condition")
        for phone in phones {
            let coverages = phone.strategies.map { "   " + Self.percent($0.tally.coverage) }
            lines.append(
                String(format: "%5d  %8d", phone.client, phone.strategies.first?.tally.entries ?? 0) + "  "
                    + coverages.joined(separator: " ")
                    + "  " + phone.condition.summary)
        }
        for (index, result) in strategies.enumerated() {
            guard let (median, worst) = spread(strategy: index) else { continue }
            lines.append(
                "\(result.strategy.rawValue): median phone \(Self.percent(median.coverage).trimmingCharacters(in: .whitespaces)), worst phone \(Self.percent(worst.tally.coverage).trimmingCharacters(in: .whitespaces)) (phone \(worst.client))"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// The median phone's coverage and the worst phone (lowest coverage) under strategy number
    /// `strategy`, over the phones that arrived anywhere; `nil` when none did.
    public func spread(strategy: Int) -> (median: SimulationTally, worst: (client: Int, tally: SimulationTally))? {
        let ranked = phones.compactMap { phone -> (client: Int, tally: SimulationTally, coverage: Double)? in
            let tally = phone.strategies[strategy].tally
            return tally.coverage.map { (phone.client, tally, $0) }
        }.sorted { ($0.coverage, $0.client) < ($1.coverage, $1.client) }
        guard let worst = ranked.first else { return nil }
        return (ranked[ranked.count / 2].tally, (worst.client, worst.tally))
    }

    private static func percent(_ coverage: Double?) -> String {
        coverage.map { String(format: "%7.2f%%", $0 * 100) } ?? "      -"
    }

    private static func churn(_ tally: SimulationTally) -> String {
        tally.churnPer100m.map { String(format: "%10.1f", $0) } ?? "         -"
    }

    private static func wakes(_ tally: SimulationTally) -> String {
        tally.metresWalked > 0 ? String(format: "%10.1f", Double(tally.wakes) * 100 / tally.metresWalked) : "         -"
    }
}
