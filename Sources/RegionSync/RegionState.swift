/// What iOS says about a monitored region.
public enum RegionState: String, Sendable, Hashable {
    /// A matching beacon is detectable (`CLRegionState.inside`, `CLMonitor` `.satisfied`).
    case inside
    /// No matching beacon detected for about 30 s (`.outside`, `.unsatisfied`).
    case outside
    /// iOS does not know yet (`.unknown`).
    case unknown
    /// `CLMonitor` gave the condition up (`.unmonitored`): it stays listed but reports nothing.
    case unmonitored
}
