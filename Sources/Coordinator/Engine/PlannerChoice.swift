public import Planner
public import Topology

/// Which planner chooses each client's monitored set (`beaconfleet coordinator --planner`,
/// `beaconfleet plan --planner`).
public enum PlannerChoice: String, Sendable, CaseIterable {
    /// ``Planner/FrontierPlanner``: for a phone that runs only when iOS wakes it. Regions it may
    /// detect now, then quiet regions whose detection wakes it before it reaches any unmonitored
    /// one, then the nearest. The default.
    case frontier
    /// ``Planner/NearestPlanner``: the nearest regions by walking distance, with hysteresis; the
    /// baseline (it suits a phone that runs all the time, in the foreground).
    case nearest

    /// The planner this names for `topology`, planning at most `budget` slots per client.
    public func planner(for topology: Topology, budget: Int) -> any RegionPlanning {
        switch self {
        case .frontier: FrontierPlanner(topology: topology, configuration: FrontierPlannerConfiguration(budget: budget))
        case .nearest: NearestPlanner(topology: topology, configuration: PlannerConfiguration(budget: budget))
        }
    }
}
