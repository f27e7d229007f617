import MQTT

/// Partitioned coordinators: every `regions` set also goes out at once as a live copy.
extension CoordinatorService {
    /// After the retained QoS 1 `regions` message of `topic` was enqueued, a partitioned member
    /// enqueues the same bytes at QoS 0, not retained, on its live connection
    /// (``liveConnection(for:)``), which carries nothing but QoS 0.
    ///
    /// Why: on a NATS cluster a retained publish is stored in JetStream (`$MQTT_rmsgs`) on the
    /// publisher's read loop *before* it is delivered, and a QoS 1 subscription is a JetStream
    /// consumer; after `kill -9` of a node leading those streams both stalled 4–11 s
    /// (`scripts/nats-failover-probe`, docs/mqtt.md), and every set behind the stalled one waited
    /// too — phones walking into a region then found it unmonitored. A QoS 0 publish takes core
    /// NATS and reaches QoS 0 and QoS 1 subscribers alike (delivered at QoS 0; checked with
    /// `mosquitto_sub -q 1` on the cluster), which never stalled. The retained copy stays the one a
    /// phone that subscribes later reads. A phone applies whichever arrives first and ignores the
    /// other (same version); on mosquitto the copy is only a duplicate.
    func enqueueLiveCopy(topic: String, payload: [UInt8]) {
        guard ownership != nil, let liveClient, liveClient.connectionState.isConnected else { return }
        // Best effort: the retained set is already enqueued, so a refused copy loses nothing.
        try? liveClient.enqueue(topic: topic, payload: payload, qos: .atMostOnce, retain: false)
    }
}
