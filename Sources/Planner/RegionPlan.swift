public import Foundation

/// A client's monitored set, the smallest diff from what it monitored before, and how far it
/// may walk before the set must be re-planned.
public struct RegionPlan: Sendable, Hashable {
    /// The whole set in slot order: pinned (by id), inside, then nearest (by distance, then id).
    public var regions: [PlannedRegion]
    /// Regions to start monitoring, in slot order; never one the client already monitors.
    public var added: [PlannedRegion]
    /// Regions (the topology's indices) to stop monitoring, in the order of
    /// ``PlanRequest/monitored``, each once; never one of `regions`.
    public var removed: [Int]
    /// Metres of walking from the planned location before the client could reach a region that
    /// is not monitored: the walking distance to the nearest unmonitored region's edge
    /// (`.infinity` when every reachable region is monitored). Re-plan before the client has
    /// walked this far.
    public var validFor: Double
    /// The budget the set was planned for.
    public var budget: Int
    /// When the plan was made (the request's `now`).
    public var plannedAt: Date

    /// The region ids in slot order.
    public var ids: [String] { regions.map(\.id) }

    /// Whether the set differs from the previous one.
    public var isChanged: Bool { !added.isEmpty || !removed.isEmpty }
}
