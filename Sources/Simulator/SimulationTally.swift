/// Counts what the quality report is made of, for one planning strategy:
///
/// - **coverage** = covered arrivals / arrivals (`entries`): every time a walker's true position
///   comes within a region's radius is one arrival; ``ArrivalCoverage`` decides whether it is
///   covered (the region monitored at some moment of the approach, IOS.md);
/// - **churn** = (adds + removes) per 100 m walked: every region started or stopped after the
///   first applied set (its starts are set-up, not churn);
/// - **wakes**: region events that ran a suspended app.
public struct SimulationTally: Sendable, Hashable, Codable {
    public var entries = 0
    public var covered = 0
    public var added = 0
    public var removed = 0
    public var metresWalked = 0.0
    /// `regions` messages the phone applied.
    public var plans = 0
    /// Region events (enter, exit) that ran the app.
    public var wakes = 0
    /// Entries of regions that were not monitored, by region id (the first few, for diagnosis).
    public var missedRegions: [String] = []

    public init() {}

    /// An arrival; `monitored`: whether iOS told the app about it (see ``ArrivalCoverage``).
    public mutating func recordEntry(region: String, monitored: Bool) {
        entries += 1
        if monitored {
            covered += 1
        } else if missedRegions.count < 20 {
            missedRegions.append(region)
        }
    }

    /// Share of entries that found their region monitored; `nil` without entries.
    public var coverage: Double? { entries == 0 ? nil : Double(covered) / Double(entries) }

    /// Adds plus removes per 100 m walked; `nil` when nobody walked.
    public var churnPer100m: Double? { metresWalked <= 0 ? nil : Double(added + removed) * 100 / metresWalked }

    /// Sums two tallies (for example two clients').
    public mutating func merge(_ other: SimulationTally) {
        entries += other.entries
        covered += other.covered
        added += other.added
        removed += other.removed
        metresWalked += other.metresWalked
        plans += other.plans
        wakes += other.wakes
        for region in other.missedRegions where missedRegions.count < 20 { missedRegions.append(region) }
    }
}
