import CMosquitto
import Foundation
import Logging

/// libmosquitto's callbacks, all called on the network thread.
extension ClientCore {
    func didConnect(code: Int32, sessionPresent: Bool) {
        if code == 0 {
            let url = currentURL
            let version = spokenVersion
            state.withLock { state in
                state.reconnectDelay = configuration.reconnectDelayMin
                state.attemptAccepted = true
                state.negotiated = (url, version)
                state.setConnection(.connected)
                for (filter, subscription) in state.subscriptions where !sessionPresent || !subscription.confirmed {
                    state.subscriptions[filter]?.confirmed = false
                    sendSubscribe(filter, qos: subscription.qos, state: &state)
                }
                for waiter in state.connectWaiters { waiter.resume(returning: .success(())) }
                state.connectWaiters.removeAll()
            }
            logger.info(
                "MQTT connected", metadata: ["broker": "\(url)", "protocol": "\(version)", "sessionPresent": "\(sessionPresent)"])
        } else if code == Self.unsupportedProtocolVersion && spokenVersion == .v5 && configuration.fallsBackToV311 {
            // Not a failure yet: the network loop retries this broker with MQTT 3.1.1 at once.
            state.withLock { $0.fallbackPending = true }
        } else {
            let error = refusal(code: code)
            state.withLock { state in
                state.setConnection(.disconnected(error))
                for waiter in state.connectWaiters { waiter.resume(returning: .failure(error)) }
                state.connectWaiters.removeAll()
            }
            logger.error("MQTT connection refused", metadata: ["broker": "\(broker)", "error": "\(error)"])
        }
    }

    /// The MQTT 5 CONNACK reason code of a broker that speaks an older version only (libmosquitto
    /// reports a 3.1.1 broker's "unacceptable protocol version" so too).
    static let unsupportedProtocolVersion: Int32 = 132

    /// Maps a CONNACK failure code to the error that names its cause.
    func refusal(code: Int32) -> MQTTError {
        let user = currentURL.username
        switch spokenVersion {
        case .v311:
            switch code {
            case 4: return .badCredentials(broker: broker, user: user)
            case 5: return .notAuthorized(broker: broker, user: user)
            default: return .connectionRefused(broker: broker, code: Int(code), reason: MosquittoLibrary.connackText(code))
            }
        case .v5:
            switch code {
            case 134: return .badCredentials(broker: broker, user: user)
            case 135: return .notAuthorized(broker: broker, user: user)
            default: return .connectionRefused(broker: broker, code: Int(code), reason: MosquittoLibrary.reasonText(code))
            }
        }
    }

    func didDisconnect(code: Int32) {
        let reason: String =
            switch code {
            case 0: "disconnected"
            case 1..<0x80: MosquittoLibrary.errorText(code)
            default: MosquittoLibrary.reasonText(code)
            }
        let wasConnected = state.withLock { state -> Bool in
            // Unwritten QoS 0 packets are discarded on reconnect; QoS ≥ 1 messages stay queued and are resent.
            state.pendingAtMostOnce = 0
            state.resumeDrainWaitersIfEmpty()
            guard state.acceptsWork else { return false }
            switch state.connection {
            case .connected, .connecting:
                let wasConnected = state.connection == .connected
                state.setConnection(.disconnected(.connectionLost(broker: broker, reason: reason)))
                return wasConnected
            default:
                return false
            }
        }
        if wasConnected {
            logger.warning("MQTT connection lost; reconnecting", metadata: ["broker": "\(broker)", "reason": "\(reason)"])
        }
    }

    func didComplete(messageID: Int32, reason: Int32) {
        let rejected: (String, Int32)? = state.withLock { state in
            defer { state.resumeDrainWaitersIfEmpty() }
            guard let pending = state.pendingAcks.removeValue(forKey: messageID) else {
                if state.registering > 0 {
                    // Either a publish still registering, or a QoS 0 message: sorted out by finishRegistrations().
                    state.earlyCompletions[messageID] = reason
                } else if state.pendingAtMostOnce > 0 {
                    // A QoS 0 message was written to the socket.
                    state.pendingAtMostOnce -= 1
                }
                return nil
            }
            if reason >= 0x80 {
                let error = MQTTError.publishRejected(topic: pending.topic, reason: MosquittoLibrary.reasonText(reason))
                pending.waiter?.resume(returning: .failure(error))
                return pending.waiter == nil ? (pending.topic, reason) : nil
            }
            pending.waiter?.resume(returning: .success(()))
            return nil
        }
        if let (topic, reason) = rejected {
            logger.warning(
                "MQTT publish rejected by the broker",
                metadata: ["topic": "\(topic)", "reason": "\(MosquittoLibrary.reasonText(reason))"])
        }
    }

    func didReceive(_ raw: UnsafeMutablePointer<mosquitto_message>, properties: OpaquePointer?) {
        var received = ReceivedMessage(raw, userProperties: properties.map(Self.userProperties) ?? [])
        var dropped = 0
        // Streams and the parked list keep the message: one copy for all of them, made before any
        // handler may take the payload. Handlers get it in place.
        let handlers = state.withLock { state -> [@Sendable (inout ReceivedMessage) -> Void] in
            if state.messageObservers.isEmpty {
                if state.parkedMessages.count < configuration.messageBufferLimit {
                    state.parkedMessages.append(received.message())
                } else {
                    dropped += 1
                }
                return []
            }
            var copy: MQTTMessage?
            var handlers: [@Sendable (inout ReceivedMessage) -> Void] = []
            for observer in state.messageObservers.values {
                switch observer {
                case .stream(let continuation):
                    let message = copy ?? received.message()
                    copy = message
                    if case .dropped = continuation.yield(message) { dropped += 1 }
                case .handler(let handler):
                    handlers.append(handler)
                }
            }
            return handlers
        }
        // Outside the lock, which readers of the client's state need; this thread alone calls the
        // handlers, so they see the messages in order.
        for handler in handlers { handler(&received) }
        if dropped > 0 {
            let total = droppedMessages.add(dropped, ordering: .relaxed).newValue
            if total == dropped || total % 10_000 < dropped {
                logger.warning(
                    "MQTT consumer too slow: incoming messages dropped",
                    metadata: ["dropped": "\(total)", "bufferLimit": "\(configuration.messageBufferLimit)", "topic": "\(received.topic)"])
            }
        }
    }

    /// Copies the MQTT 5 user properties out of a libmosquitto property list.
    static func userProperties(_ list: OpaquePointer) -> [MQTTUserProperty] {
        var result: [MQTTUserProperty] = []
        var name: UnsafeMutablePointer<CChar>?
        var value: UnsafeMutablePointer<CChar>?
        let identifier = Int32(MQTT_PROP_USER_PROPERTY.rawValue)
        var current = mosquitto_property_read_string_pair(list, identifier, &name, &value, false)
        while current != nil {
            if let name, let value {
                result.append(MQTTUserProperty(String(cString: name), String(cString: value)))
            }
            free(name)
            free(value)
            name = nil
            value = nil
            current = mosquitto_property_read_string_pair(current, identifier, &name, &value, true)
        }
        return result
    }

    func didSubscribe(messageID: Int32, granted: Int32) {
        state.withLock { state in
            guard let filter = state.subscribeRequests.removeValue(forKey: messageID) else { return }
            let result: Result<QoS, MQTTError>
            if granted >= 0x80 || QoS(rawValue: granted) == nil {
                state.subscriptions.removeValue(forKey: filter)
                let reason = granted == 0x80 ? "the broker refused it" : MosquittoLibrary.reasonText(granted)
                result = .failure(.subscriptionRefused(filter: filter, reason: reason))
            } else {
                state.subscriptions[filter]?.confirmed = true
                result = .success(QoS(rawValue: granted)!)
            }
            for waiter in state.subscribeWaiters.removeValue(forKey: filter) ?? [] {
                waiter.resume(returning: result)
            }
        }
    }

    func didUnsubscribe(messageID: Int32) {
        state.withLock { state in
            state.unsubscribeWaiters.removeValue(forKey: messageID)?.resume(returning: .success(()))
        }
    }

    func didLog(level: Int32, text: String) {
        if level & Int32(MOSQ_LOG_ERR) != 0 {
            lastLibraryError.withLock { $0 = text }
            logger.debug("libmosquitto error", metadata: ["broker": "\(broker)", "message": "\(text)"])
        }
    }

    /// Sends a SUBSCRIBE for `filter`; called with `state` held.
    func sendSubscribe(_ filter: String, qos: QoS, state: inout CoreState) {
        var messageID: Int32 = 0
        let rc = mosquitto_subscribe_v5(handle, &messageID, filter, qos.rawValue, 0, nil)
        if rc == MosquittoLibrary.success {
            state.subscribeRequests[messageID] = filter
        } else if rc != MosquittoLibrary.noConnection {
            let error = MQTTError.library(operation: "subscribe to '\(filter)'", code: Int(rc), message: MosquittoLibrary.errorText(rc))
            for waiter in state.subscribeWaiters.removeValue(forKey: filter) ?? [] {
                waiter.resume(returning: .failure(error))
            }
        }
    }
}
