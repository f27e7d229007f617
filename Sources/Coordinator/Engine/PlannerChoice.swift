/// Which planner chooses each client's monitored set (`beaconfleet coordinator --planner`).
public enum PlannerChoice: String, Sendable, CaseIterable {
    /// ``Planner/FrontierPlanner``: for a phone that runs only when iOS wakes it. Regions it may
    /// detect now, then quiet regions whose detection wakes it before it reaches any unmonitored
    /// one, then the nearest. The default.
    case frontier
    /// ``Planner/RegionPlanner``: the nearest regions by walking distance, with hysteresis; the
    /// baseline (it suits a phone that runs all the time, in the foreground).
    case nearest
}
