public import WireProtocol

/// What iOS offers for monitoring beacon regions, reduced to what ``RegionApplier`` needs, so the
/// logic runs (and is tested) without Core Location. `RegionSyncCoreLocation` adapts
/// `CLLocationManager` and `CLMonitor`; `RegionSyncTesting` has a fake that follows iOS's rules.
///
/// iOS answers asynchronously: a start may be refused later (a ``RegionMonitorEvent/failure(identifier:_:)``)
/// or silently. What ``monitoredRegions()`` returns afterwards is the truth, never what was asked.
public protocol RegionMonitor: Sendable {
    /// Starts monitoring `region`; an identifier already monitored is replaced (classic) or the
    /// call is ignored (`CLMonitor`).
    func startMonitoring(_ region: BeaconRegion) async
    /// Stops monitoring the region registered under `identifier`; unknown identifiers are ignored.
    func stopMonitoring(identifier: String) async
    /// Asks for the region's state; the answer comes as a ``RegionMonitorEvent/state(identifier:_:)``
    /// event. iOS fires no enter for a region added while its beacon is already in range.
    func requestState(identifier: String) async
    /// Every region the app monitors now, its own and other SDKs' included (`monitoredRegions`).
    func monitoredRegions() async -> [MonitoredRegion]
    /// The events iOS delivers. One stream for the monitor's lifetime, for one consumer
    /// (``RegionEventLog/consume(_:)``); events are buffered until it reads them.
    var events: AsyncStream<RegionMonitorEvent> { get }
    /// Which Core Location back end this is, for the report's `phone.backEnd`; `nil` (the
    /// default) for a monitor that is neither, such as a test double.
    var backEnd: RegionMonitorBackEnd? { get }
    /// The app's location authorization as the monitor reads it, for the report's
    /// `phone.authorization`; `nil` (the default) when it cannot tell.
    func locationAuthorization() async -> LocationAuthorization?
}

extension RegionMonitor {
    /// No back end to name.
    public var backEnd: RegionMonitorBackEnd? { nil }

    /// Authorization unknown.
    public func locationAuthorization() async -> LocationAuthorization? { nil }
}
