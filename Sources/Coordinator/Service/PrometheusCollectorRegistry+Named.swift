import Prometheus

/// The coordinator's metrics by their whole name, as `/metrics` shows them
/// (`beaconfleet_coordinator_plans_total`): swift-prometheus deprecated making them from a bare
/// name in favour of a `MetricNameDescriptor`, whose components joined with `_` give the name, so
/// the whole name is its one component and every name stays as it was.
extension PrometheusCollectorRegistry {
    func makeCounter(named name: String, labels: [(String, String)] = [], help: String) -> Counter {
        makeCounter(descriptor: .named(name, help: help), labels: labels)
    }

    func makeGauge(named name: String, labels: [(String, String)] = [], help: String) -> Gauge {
        makeGauge(descriptor: .named(name, help: help), labels: labels)
    }

    func makeDurationHistogram(named name: String, buckets: [Duration], help: String) -> DurationHistogram {
        makeDurationHistogram(descriptor: .named(name, help: help), buckets: buckets)
    }
}

extension MetricNameDescriptor {
    /// A descriptor whose name is `name` as it is.
    static func named(_ name: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
