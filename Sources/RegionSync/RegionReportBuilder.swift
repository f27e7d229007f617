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
    /// - `version`: the `regions` version applied (``RegionApplier/appliedVersion``).
    public func report(
        held: [MonitoredRegion], ranged: [RangedBeacon], events: [RegionEvent], version: UInt64?,
        advertising: AdvertisedIdentity? = nil, time: Date = Date()
    ) -> ClientReport {
        let monitored = held.filter { !$0.isUnmonitored }.compactMap { configuration.region(forIdentifier: $0.identifier) }.sorted()
        return ClientReport(
            time: time, ranged: ranged, events: events, monitored: Array(monitored.prefix(ClientReport.maximumMonitored)),
            budget: min(configuration.budget(held: held), ClientReport.maximumBudget), advertising: advertising, version: version)
    }

    /// A report with what `monitor` holds now.
    public func report(
        from monitor: any RegionMonitor, ranged: [RangedBeacon], events: [RegionEvent], version: UInt64?,
        advertising: AdvertisedIdentity? = nil, time: Date = Date()
    ) async -> ClientReport {
        report(
            held: await monitor.monitoredRegions(), ranged: ranged, events: events, version: version, advertising: advertising, time: time)
    }
}
