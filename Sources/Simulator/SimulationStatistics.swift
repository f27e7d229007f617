/// Order statistics for reports.
public enum SimulationStatistics {
    /// The `p`-th percentile (0…100) with linear interpolation between closest ranks (numpy's default);
    /// `nil` for no values.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = min(max(p, 0), 100) / 100 * Double(sorted.count - 1)
        let lower = Int(rank.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let fraction = rank - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }

    /// The median (50th percentile).
    public static func median(_ values: [Double]) -> Double? { percentile(values, 50) }
}
