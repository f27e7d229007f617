import MQTT

/// Partitioned coordinators: every `regions` set also goes out at once as a live copy.
extension CoordinatorService {
    /// After the retained QoS 1 `regions` message of `topic` was enqueued, a partitioned member
    /// enqueues the same bytes at QoS 0, not retained, on its live connection
    /// (``liveConnection(for:)``): on a NATS cluster a retained publish waits for JetStream, which
    /// stalls for seconds after a node kill, while QoS 0 takes core NATS. The retained copy stays
    /// the one a phone that subscribes later reads; a phone applies whichever arrives first.
    ///
    /// A set that went out without its copy (the live connection was down) may still wait on the
    /// outbound connection, and a later set's copy would overtake it: once a topic's copy is
    /// skipped, its copies resume only when the outbound connection has every earlier set acknowledged.
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
