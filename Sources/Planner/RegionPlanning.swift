public import Topology

/// A way of choosing a client's monitored set: a pure, deterministic function of the topology,
/// the planner's configuration and a ``PlanRequest``. ``NearestPlanner`` (nearest by walking
/// distance, with hysteresis) and ``FrontierPlanner`` (for a phone that runs only when iOS wakes
/// it) are the two.
public protocol RegionPlanning: Sendable {
    /// The venue the planner answers for.
    var topology: Topology { get }
    /// Plans using `search`'s scratch memory (`search` must be on the same topology).
    func plan(_ request: PlanRequest, using search: WalkingDistanceSearch) -> RegionPlan
}

extension RegionPlanning {
    /// Plans with a throw-away search (it allocates memory proportional to the venue): for many
    /// plans, keep a ``WalkingDistanceSearch`` and call ``plan(_:using:)``.
    public func plan(_ request: PlanRequest) -> RegionPlan {
        plan(request, using: WalkingDistanceSearch(topology: topology))
    }
}

extension PlanRequest {
    /// The slots to fill: the client's own budget, capped by the planner's.
    func slots(cappedAt configured: Int) -> Int { Swift.max(0, Swift.min(budget ?? configured, configured)) }
}

extension RegionPlan {
    /// The plan of `chosen` (in slot order) for `request`: the smallest diff from what the client
    /// monitors (`monitored`, its indices), the removals in the order of its previous set.
    init(chosen: [PlannedRegion], for request: PlanRequest, monitored: Set<Int>, validFor: Double, budget: Int) {
        let added = chosen.filter { !monitored.contains($0.region) }
        let kept = Set(chosen.map(\.region))
        var removed: [Int] = []
        var seen = Set<Int>()
        for region in request.monitored where !kept.contains(region) && seen.insert(region).inserted { removed.append(region) }
        self.init(regions: chosen, added: added, removed: removed, validFor: validFor, budget: budget, plannedAt: request.now)
    }
}
