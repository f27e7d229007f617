/// Counts what the quality report is made of, for one planning strategy:
///
/// - **coverage** = covered entries / entries: every time a walker's true position crosses into a
///   region's radius (outside → inside, on the region's level) is one entry; it is covered when the
///   region was in the phone's monitored set at that moment (before any re-plan the entry causes);
/// - **churn** = (adds + removes) per 100 m walked: every region added to or removed from the
///   monitored set after the first plan (the first plan's adds are set-up, not churn).
public struct SimulationTally: Sendable, Hashable, Codable {
    public var entries = 0
    public var covered = 0
    public var added = 0
    public var removed = 0
    public var metresWalked = 0.0
    /// Plans computed, and plans that changed the set.
    public var plans = 0
    public var changedPlans = 0
    /// Times a sleeping phone was woken by an event of a monitored region.
    public var wakes = 0
    /// Entries of regions that were not monitored, by region id (the first few, for diagnosis).
    public var missedRegions: [String] = []

    public init() {}

    /// A region entry; `monitored` is whether the phone monitored it at that moment.
    public mutating func recordEntry(region: String, monitored: Bool) {
        entries += 1
        if monitored {
            covered += 1
        } else if missedRegions.count < 20 {
            missedRegions.append(region)
        }
    }

    /// A plan applied to the phone; `initial` plans (no previous set) are not churn.
    public mutating func recordPlan(added: Int, removed: Int, initial: Bool) {
        plans += 1
        guard !initial else { return }
        if added + removed > 0 { changedPlans += 1 }
        self.added += added
        self.removed += removed
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
        changedPlans += other.changedPlans
        wakes += other.wakes
        for region in other.missedRegions where missedRegions.count < 20 { missedRegions.append(region) }
    }
}
