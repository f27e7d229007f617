public import Prometheus

/// The coordinator's Prometheus metrics, in a registry of its own (no global metrics system).
public final class CoordinatorMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let messagesIn: [String: Counter]
    let invalid: [String: Counter]
    let messagesOut: [String: Counter]
    let shed: Counter
    let duplicates: Counter
    /// Phone reports received again (a QoS 0 copy beside the QoS 1 report, a redelivery) and dropped.
    let repeatedReports: Counter
    let sequenceResets: Counter
    let departures: Counter
    let reconciliations: Counter
    let estimates: Counter
    let plans: Counter
    let clients: Gauge
    /// Phones whose last report said iOS cannot wake them (When In Use, Background App Refresh
    /// off, Low Power Mode): located only while their app is open.
    let unwakeablePhones: Gauge
    /// When sightings were last applied (Unix seconds): alert when it stops moving; a benchmark
    /// reads when the last of a stream was applied from it.
    let lastSightings: Gauge
    let sightingsQueue: Gauge
    let priorityQueue: Gauge
    let publishQueue: Gauge
    let planLatency: DurationHistogram
    let rotationLatency: DurationHistogram

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        func counter(_ name: String, _ kind: String, _ help: String) -> Counter {
            registry.makeCounter(named: name, labels: [("kind", kind)], help: help)
        }
        messagesIn = Dictionary(
            uniqueKeysWithValues: ["sightings", "sighting", "report", "gateway_status"].map {
                ($0, counter("beaconfleet_coordinator_messages_in_total", $0, "Messages (and sightings within batches) received, by kind"))
            })
        invalid = Dictionary(
            uniqueKeysWithValues: ["topic", "payload", "oversized"].map {
                ($0, counter("beaconfleet_coordinator_invalid_messages_total", $0, "Messages rejected, by reason"))
            })
        messagesOut = Dictionary(
            uniqueKeysWithValues: ["regions", "event", "clear", "status"].map {
                ($0, counter("beaconfleet_coordinator_messages_out_total", $0, "Messages published, by kind"))
            })
        shed = registry.makeCounter(
            named: "beaconfleet_coordinator_shed_sightings_batches_total", help: "Sightings batches shed because the ingest queue was full")
        duplicates = registry.makeCounter(
            named: "beaconfleet_coordinator_duplicate_batches_total", help: "Sightings batches skipped as repeated or late")
        repeatedReports = registry.makeCounter(
            named: "beaconfleet_coordinator_repeated_reports_total",
            help: "Phone reports received again (the same bytes within 30 s: a QoS 0 copy, a redelivery) and dropped")
        sequenceResets = registry.makeCounter(
            named: "beaconfleet_coordinator_sequence_resets_total",
            help: "Gateways whose duplicate check started over (a new spool epoch, or online after offline without epochs)")
        departures = registry.makeCounter(
            named: "beaconfleet_coordinator_departures_total", help: "Clients judged gone by absence from healthy gateways' windows")
        reconciliations = registry.makeCounter(
            named: "beaconfleet_coordinator_reconciliations_total", help: "Re-plans because a phone's monitored list differed from its plan"
        )
        estimates = registry.makeCounter(
            named: "beaconfleet_coordinator_estimates_total", help: "Position estimates (a client's new evidence folded into its position)")
        plans = registry.makeCounter(named: "beaconfleet_coordinator_plans_total", help: "Planner runs")
        clients = registry.makeGauge(named: "beaconfleet_coordinator_clients", help: "Clients known")
        unwakeablePhones = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "beaconfleet", subsystem: "coordinator", metricName: "unwakeable", unitName: "phones",
                helpText:
                    "Phones whose last report said iOS cannot wake them for region events (authorization, Background App Refresh, Low Power Mode)"
            ))
        lastSightings = registry.makeGauge(
            named: "beaconfleet_coordinator_last_sightings_timestamp_seconds", help: "Unix time at which sightings were last applied")
        sightingsQueue = registry.makeGauge(
            named: "beaconfleet_coordinator_queue_depth", labels: [("queue", "sightings")], help: "Messages waiting")
        priorityQueue = registry.makeGauge(
            named: "beaconfleet_coordinator_queue_depth", labels: [("queue", "reports")], help: "Messages waiting")
        publishQueue = registry.makeGauge(
            named: "beaconfleet_coordinator_queue_depth", labels: [("queue", "publish")], help: "Messages waiting")
        let buckets: [Duration] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(500),
        ]
        planLatency = registry.makeDurationHistogram(
            named: "beaconfleet_coordinator_plan_seconds", buckets: buckets,
            help: "Time to apply a batch of messages and plan the clients they touched")
        rotationLatency = registry.makeDurationHistogram(
            named: "beaconfleet_coordinator_rotation_seconds", buckets: buckets,
            help: "From a message's arrival to the publication of what it caused")
    }

    /// Adds the growth of the engine's counters since `previous`.
    func record(_ counters: IngestCounters, since previous: IngestCounters) {
        func add(_ counter: Counter?, _ now: UInt64, _ before: UInt64) {
            if now > before { counter?.increment(by: Int64(now - before)) }
        }
        add(messagesIn["sightings"], counters.sightingsBatches, previous.sightingsBatches)
        add(messagesIn["sighting"], counters.sightings, previous.sightings)
        add(messagesIn["report"], counters.reports, previous.reports)
        add(messagesIn["gateway_status"], counters.gatewayStatuses, previous.gatewayStatuses)
        add(invalid["topic"], counters.invalidTopics, previous.invalidTopics)
        add(invalid["payload"], counters.invalidPayloads, previous.invalidPayloads)
        add(invalid["oversized"], counters.oversizedPayloads, previous.oversizedPayloads)
        add(messagesOut["regions"], counters.regionsPublished, previous.regionsPublished)
        add(messagesOut["event"], counters.eventsPublished, previous.eventsPublished)
        add(messagesOut["clear"], counters.expired, previous.expired)
        add(duplicates, counters.duplicateBatches, previous.duplicateBatches)
        add(sequenceResets, counters.sequenceResets, previous.sequenceResets)
        add(departures, counters.departures, previous.departures)
        add(reconciliations, counters.reconciliations, previous.reconciliations)
        add(estimates, counters.estimates, previous.estimates)
        add(plans, counters.plans, previous.plans)
        for (gateway, counts) in counters.notAdmitted where counts != previous.notAdmitted[gateway] {
            let before = previous.notAdmitted[gateway] ?? AdmissionCounts()
            for ((reason, now), (_, then)) in zip(counts.byReason, before.byReason) where now > then {
                registry.makeCounter(
                    named: "beaconfleet_coordinator_unadmitted_sightings_total", labels: [("gateway", gateway), ("reason", reason)],
                    help:
                        "Sightings that made no client, by gateway and reason (region beacon, the venue's other beacons, not admitted by clients.csv)"
                ).increment(by: Int64(now - then))
            }
        }
    }

    /// The Prometheus text exposition.
    public func render() -> String { registry.emitToString() }
}
