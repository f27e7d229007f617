/// One thing iOS told the app about a monitored region.
public enum RegionMonitorEvent: Sendable, Hashable {
    /// The first detection while the region was outside (`didEnterRegion`).
    case enter(identifier: String)
    /// About 30 s without a detection while inside (`didExitRegion`).
    case exit(identifier: String)
    /// A state, asked for (`requestState`, `didDetermineState`) or delivered by `CLMonitor`'s events.
    case state(identifier: String, RegionState)
    /// iOS could not monitor the region (`monitoringDidFailFor`), typically code 5.
    case failure(identifier: String, RegionMonitorError)

    /// The identifier of the region the event is about.
    public var identifier: String {
        switch self {
        case .enter(let identifier), .exit(let identifier), .state(let identifier, _), .failure(let identifier, _):
            return identifier
        }
    }
}
