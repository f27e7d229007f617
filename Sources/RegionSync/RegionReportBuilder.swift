public import Foundation
public import WireProtocol

/// Builds the phone's `report` from the truth: `monitored` is what iOS holds of BeaconFleet's
/// regions (never what was asked), `budget` the slots left after the app's own regions.
public struct RegionReportBuilder: Sendable {
    public let configuration: RegionSyncConfiguration

    public init(configuration: RegionSyncConfiguration = RegionSyncConfiguration()) {
        self.configuration = configuration
    }

    /// A report from what iOS holds now (`held`, every region of the app).
    ///
    /// - `ranged`: the beacons ranged since the last report;
    /// - `events`: the enters and exits since the last report (``RegionEventLog/takeEvents()``);
    /// - `version`: the `regions` version applied (``RegionApplier/appliedVersion``);
    /// - `phone`: what the phone is (``PhoneContext/status(backEnd:authorization:)``).
    public func report(
        held: [MonitoredRegion], ranged: [RangedBeacon], events: [RegionEvent], version: UInt64?,
        advertising: AdvertisedIdentity? = nil, phone: PhoneStatus? = nil, time: Date = Date()
    ) -> ClientReport {
        let monitored = held.filter { !$0.isUnmonitored }.compactMap { configuration.region(forIdentifier: $0.identifier) }.sorted()
        return ClientReport(
            time: time, ranged: ranged, events: events, monitored: Array(monitored.prefix(ClientReport.maximumMonitored)),
            budget: min(configuration.budget(held: held), ClientReport.maximumBudget), advertising: advertising, version: version,
            phone: phone)
    }

    /// A report with what `monitor` holds now, and `phone` from `context` with the monitor's back
    /// end and location authorization.
    public func report(
        from monitor: any RegionMonitor, ranged: [RangedBeacon], events: [RegionEvent], version: UInt64?,
        advertising: AdvertisedIdentity? = nil, context: PhoneContext = PhoneContext(), time: Date = Date()
    ) async -> ClientReport {
        let phone = context.status(backEnd: monitor.backEnd, authorization: await monitor.locationAuthorization())
        return report(
            held: await monitor.monitoredRegions(), ranged: ranged, events: events, version: version, advertising: advertising,
            phone: phone, time: time)
    }
}
