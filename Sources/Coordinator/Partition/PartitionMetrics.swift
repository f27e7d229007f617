public import Prometheus

/// A partitioned coordinator's metrics, in the coordinator's registry (so on `/metrics`).
public final class PartitionMetrics: Sendable {
    /// Times another member's newer set fenced a partition this member owned.
    public let fences: Counter
    /// Outputs not published: their client's partition is not this member's (or is fenced, or the lease is not known valid).
    public let withheld: Counter
    public let owned: Gauge
    public let fenced: Gauge
    public let live: Gauge
    public let membershipChanges: Counter
    /// Held reports relayed after a membership change (``HeldReports/relays(now:answered:owned:)``).
    public let relayedReports: Counter

    public init(registry: PrometheusCollectorRegistry) {
        fences = registry.makeCounter(
            named: "beaconfleet_coordinator_fences_total",
            help: "Partitions fenced: another coordinator published a higher fencing token for a partition this one held")
        withheld = registry.makeCounter(
            named: "beaconfleet_coordinator_withheld_outputs_total",
            help: "Outputs not published because their client's partition is another member's, fenced, or the lease is not known valid")
        owned = registry.makeGauge(named: "beaconfleet_coordinator_partitions", labels: [("state", "owned")], help: "Partitions")
        fenced = registry.makeGauge(named: "beaconfleet_coordinator_partitions", labels: [("state", "fenced")], help: "Partitions")
        live = registry.makeGauge(
            named: "beaconfleet_coordinator_live_members", help: "Coordinators of this venue live (their member key in etcd)")
        membershipChanges = registry.makeCounter(
            named: "beaconfleet_coordinator_membership_changes_total", help: "Changes of the live member set")
        relayedReports = registry.makeCounter(
            named: "beaconfleet_coordinator_relayed_reports_total",
            help: "Phone reports held unanswered after a membership change and relayed once for the partition's owner")
    }
}
