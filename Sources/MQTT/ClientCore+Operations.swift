import CMosquitto
import Foundation

/// What callers ask of a client: publish, subscribe, unsubscribe, close.
extension ClientCore {
    /// Hands one message to libmosquitto, bounded by ``MQTTConfiguration/maxQueued``. With a `waiter`,
    /// it is resumed when the message is done (QoS 0: handed over; QoS ≥ 1: acknowledged) — but only when
    /// this function does not throw.
    func publish(
        topic: String, payload: UnsafeRawBufferPointer, qos: QoS, retain: Bool, userProperties: [MQTTUserProperty],
        waiter: CheckedContinuation<Result<Void, MQTTError>, Never>?
    ) throws(MQTTError) {
        // libmosquitto lets an empty MQTT 5 topic through (it is meant for topic aliases); the broker then
        // drops the connection as malformed and the queued message would be resent after every reconnect.
        if topic.isEmpty { throw .invalidTopic(topic, reason: "empty") }
        var properties: OpaquePointer?
        defer { if properties != nil { mosquitto_property_free_all(&properties) } }
        if !userProperties.isEmpty && spokenVersion == .v311 && configuration.protocolVersion == .v5 {
            // Asked for MQTT 5, fell back to 3.1.1, which has no user properties: send the message without them.
            let first = state.withLock { state in
                defer { state.droppedUserProperties = true }
                return !state.droppedUserProperties
            }
            if first {
                logger.notice(
                    "MQTT 3.1.1 has no user properties: publishing without them", metadata: ["broker": "\(broker)", "topic": "\(topic)"])
            }
        } else if !userProperties.isEmpty {
            guard configuration.protocolVersion == .v5 else {
                throw .invalidConfiguration(
                    field: "userProperties", reason: "need MQTT 5 (protocolVersion is \(configuration.protocolVersion))")
            }
            let identifier = Int32(MQTT_PROP_USER_PROPERTY.rawValue)
            for property in userProperties
            where mosquitto_property_add_string_pair(&properties, identifier, property.name, property.value) != MosquittoLibrary.success {
                throw .invalidConfiguration(field: "userProperties", reason: "'\(property)' is not valid UTF-8 for MQTT")
            }
        }
        let limit = configuration.maxQueued
        // Reserve a place, then call libmosquitto *without* holding `state`: the network thread needs
        // `state` for every acknowledgement, and holding it across the C call stalls it (measured: −30 %
        // QoS 1 throughput). An acknowledgement that beats the registration below is parked in
        // `earlyCompletions` while any registration is in progress.
        try state.withLock { (state) throws(MQTTError) in
            guard state.acceptsWork else { throw .closed }
            // Message ids are 16 bits: never have two unacknowledged QoS ≥ 1 messages share one.
            if state.outstanding >= limit || (qos != .atMostOnce && state.pendingAcks.count + state.registering >= 65_000) {
                throw .queueFull(topic: topic, limit: min(limit, 65_000))
            }
            state.registering += 1
        }
        var messageID: Int32 = 0
        let rc = mosquitto_publish_v5(
            handle, &messageID, topic, Int32(payload.count), payload.baseAddress, qos.rawValue, retain, properties)
        try state.withLock { (state) throws(MQTTError) in
            state.registering -= 1
            defer { state.finishRegistrations() }
            guard rc == MosquittoLibrary.success || (rc == MosquittoLibrary.noConnection && qos != .atMostOnce) else {
                throw publishError(rc, topic: topic, size: payload.count)
            }
            // While disconnected, libmosquitto keeps QoS ≥ 1 messages and sends them after reconnecting.
            if let reason = state.earlyCompletions.removeValue(forKey: messageID) {
                if qos != .atMostOnce && reason >= 0x80 {
                    waiter?.resume(returning: .failure(.publishRejected(topic: topic, reason: MosquittoLibrary.reasonText(reason))))
                } else {
                    waiter?.resume(returning: .success(()))
                }
            } else if qos == .atMostOnce {
                state.pendingAtMostOnce += 1
                waiter?.resume(returning: .success(()))
            } else {
                state.pendingAcks[messageID] = CoreState.PendingAck(topic: topic, waiter: waiter)
            }
        }
    }

    private func publishError(_ rc: Int32, topic: String, size: Int) -> MQTTError {
        switch rc {
        case MosquittoLibrary.noConnection: .notConnected(topic: topic)
        case MOSQ_ERR_INVAL.rawValue:
            .invalidTopic(topic, reason: topic.isEmpty ? "empty" : "wildcards (+, #) are not allowed in a publish topic")
        case MOSQ_ERR_MALFORMED_UTF8.rawValue: .invalidTopic(topic, reason: "not valid MQTT UTF-8")
        case MOSQ_ERR_PAYLOAD_SIZE.rawValue, MOSQ_ERR_OVERSIZE_PACKET.rawValue: .payloadTooLarge(topic: topic, size: size)
        default: .library(operation: "publish to '\(topic)'", code: Int(rc), message: MosquittoLibrary.errorText(rc))
        }
    }

    /// Records the subscription (so it returns after every reconnect) and sends it if connected.
    func subscribe(_ filter: String, qos: QoS, waiter: CheckedContinuation<Result<QoS, MQTTError>, Never>) throws(MQTTError) {
        if filter.isEmpty || mosquitto_sub_topic_check(filter) != MosquittoLibrary.success {
            throw .invalidFilter(filter, reason: filter.isEmpty ? "empty" : "'#' must be last and '+'/'#' must fill a whole level")
        }
        try state.withLock { (state) throws(MQTTError) in
            guard state.acceptsWork else { throw .closed }
            state.subscriptions[filter] = CoreState.Subscription(qos: qos, confirmed: false)
            state.subscribeWaiters[filter, default: []].append(waiter)
            if state.connection == .connected {
                sendSubscribe(filter, qos: qos, state: &state)
            }
        }
    }

    /// Forgets the subscription and sends UNSUBSCRIBE if connected; returns whether a waiter was registered.
    func unsubscribe(_ filter: String, waiter: CheckedContinuation<Result<Void, MQTTError>, Never>) throws(MQTTError) {
        try state.withLock { (state) throws(MQTTError) in
            guard state.acceptsWork else { throw .closed }
            state.subscriptions.removeValue(forKey: filter)
            guard state.connection == .connected else {
                waiter.resume(returning: .success(()))
                return
            }
            var messageID: Int32 = 0
            let rc = mosquitto_unsubscribe_v5(handle, &messageID, filter, nil)
            switch rc {
            case MosquittoLibrary.success: state.unsubscribeWaiters[messageID] = waiter
            case MosquittoLibrary.noConnection: waiter.resume(returning: .success(()))
            case MOSQ_ERR_INVAL.rawValue, MOSQ_ERR_MALFORMED_UTF8.rawValue: throw .invalidFilter(filter, reason: "not a valid filter")
            default: throw .library(operation: "unsubscribe from '\(filter)'", code: Int(rc), message: MosquittoLibrary.errorText(rc))
            }
        }
    }

    /// Disconnects cleanly, joins the network thread, destroys the handle and fails every waiter with
    /// ``MQTTError/closed``. Idempotent; safe to call from any thread but the network thread.
    func close() {
        enum Step {
            case alreadyClosing, notStarted
            case join(pthread_t)
        }
        let step = state.withLock { state -> Step in
            switch state.phase {
            case .closing, .closed: return .alreadyClosing
            case .created:
                state.phase = .closing
                return .notStarted
            case .running(let thread):
                state.phase = .closing
                return .join(thread)
            }
        }
        if case .alreadyClosing = step { return }
        stopRequested.store(true, ordering: .releasing)
        if case .join(let thread) = step {
            _ = mosquitto_disconnect_v5(handle, 0, nil)
            wakeup.lock()
            wakeup.broadcast()
            wakeup.unlock()
            pthread_join(thread, nil)
        }
        // A publish may be inside mosquitto_publish_v5 right now (it reserved its place before `closing`).
        while state.withLock({ $0.registering > 0 }) { sched_yield() }
        mosquitto_destroy(handle)
        // Balance the retain that `MQTTClient.init` handed to libmosquitto as userdata.
        Unmanaged.passUnretained(self).release()

        let leftovers = state.withLock { state in
            state.phase = .closed
            state.setConnection(.closed)
            defer {
                state.pendingAcks.removeAll()
                state.pendingAtMostOnce = 0
                state.subscribeWaiters.removeAll()
                state.unsubscribeWaiters.removeAll()
                state.connectWaiters.removeAll()
                state.drainWaiters.removeAll()
                state.stateObservers.removeAll()
                state.messageObservers.removeAll()
                state.parkedMessages.removeAll()
            }
            return (
                acks: state.pendingAcks.values.compactMap(\.waiter),
                subscribes: state.subscribeWaiters.values.flatMap { $0 },
                unsubscribes: Array(state.unsubscribeWaiters.values),
                connects: state.connectWaiters,
                drains: state.drainWaiters,
                states: Array(state.stateObservers.values),
                messages: Array(state.messageObservers.values)
            )
        }
        // Resume and finish outside the lock: finishing a stream runs its onTermination handler, which locks.
        for waiter in leftovers.acks { waiter.resume(returning: .failure(.closed)) }
        for waiter in leftovers.subscribes { waiter.resume(returning: .failure(.closed)) }
        for waiter in leftovers.unsubscribes { waiter.resume(returning: .failure(.closed)) }
        for waiter in leftovers.connects { waiter.resume(returning: .failure(.closed)) }
        for waiter in leftovers.drains { waiter.resume() }
        for observer in leftovers.states { observer.finish() }
        for case .stream(let observer) in leftovers.messages { observer.finish() }
    }
}

extension ClientCore {
    /// Cuts the TCP connection under libmosquitto without a DISCONNECT packet, as a killed process or
    /// a pulled cable would: the broker publishes the will, and the client reconnects by itself.
    /// For tests of the last will and of reconnection.
    func severConnection() {
        state.withLock { state in
            guard state.acceptsWork else { return }
            let socket = mosquitto_socket(handle)
            if socket >= 0 { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }
}
