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
    ///
    /// A set that went out without its copy (the live connection was down) may still wait on the
    /// outbound connection; a later set's copy would overtake it, and the phone would see the
    /// older version after the newer one (partition-check, mosquitto restarted: 648 arrived after
    /// 649). So once a topic's copy is skipped, its copies resume only when the outbound
    /// connection has nothing outstanding, every earlier set acknowledged.
    func enqueueLiveCopy(topic: String, payload: [UInt8]) {
        guard ownership != nil, let liveClient else { return }
        let send = liveCopyGaps.withLock { gaps in
            guard liveClient.connectionState.isConnected else {
                gaps.insert(topic)
                return false
            }
            guard gaps.contains(topic) else { return true }
            guard publisher.outstandingMessageCount == 0 else { return false }
            gaps.remove(topic)
            return true
        }
        // Best effort: the retained set is already enqueued, so a refused copy loses nothing.
        if send { try? liveClient.enqueue(topic: topic, payload: payload, qos: .atMostOnce, retain: false) }
    }
}
