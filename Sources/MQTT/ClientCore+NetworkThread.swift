import CMosquitto
import Foundation
import Logging

/// The network thread: our own loop over `mosquitto_loop`, so that every failure (including TLS
/// failures, which end libmosquitto's own `loop_forever`) turns into a visible state and a bounded,
/// exponentially growing reconnect delay, and so that ``close()`` can wake and join it at once.
extension ClientCore {
    /// Starts the network thread; the first connection attempt is made from it.
    func startNetworkThread() throws(MQTTError) {
        try state.withLock { (state) throws(MQTTError) in
            switch state.phase {
            case .running: return
            case .closing, .closed: throw .closed
            case .created: break
            }
            state.setConnection(.connecting)
            var thread = pthread_t()
            let argument = Unmanaged.passRetained(self).toOpaque()
            let rc = pthread_create(
                &thread, nil,
                { argument in
                    let core = Unmanaged<ClientCore>.fromOpaque(argument!).takeRetainedValue()
                    core.runNetworkLoop()
                    return nil
                }, argument)
            guard rc == 0 else {
                Unmanaged<ClientCore>.fromOpaque(argument).release()
                throw .library(operation: "start the network thread", code: Int(rc), message: String(cString: strerror(rc)))
            }
            state.phase = .running(thread)
        }
    }

    private var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    func runNetworkLoop() {
        networkThreadID.store(bf_current_thread_id(), ordering: .releasing)
        if let refused = configuration.networkThreadScheduling.applyToCurrentThread() {
            logger.warning(
                "MQTT network thread keeps the standard scheduling",
                metadata: ["asked": "\(configuration.networkThreadScheduling)", "error": "\(refused)"])
        }
        var logging = true
        setLibraryLogging(true)
        var sessionProperties = false
        var rc = beginAttempt(sessionProperties: &sessionProperties)
        var socketOpen = rc == MosquittoLibrary.success
        if !socketOpen { noteFailure(rc) }
        var switchBroker = false

        while !isStopping {
            if !socketOpen {
                let fallback = state.withLock { state -> Bool in
                    defer { state.fallbackPending = false }
                    return state.fallbackPending
                }
                if fallback {
                    // The broker refused MQTT 5 as unsupported: speak 3.1.1 to it, at once.
                    speaksV311.store(true, ordering: .relaxed)
                    logger.notice("MQTT broker refuses MQTT 5; speaking MQTT 3.1.1", metadata: ["broker": "\(broker)"])
                } else {
                    let wrapped = switchBroker ? advanceBroker() : true
                    guard waitBeforeReconnect(grow: wrapped) else { break }
                }
                if !logging {
                    setLibraryLogging(true)
                    logging = true
                }
                lastLibraryError.withLock { $0 = nil }
                state.withLock { $0.setConnection(.connecting) }
                rc = beginAttempt(sessionProperties: &sessionProperties)
                if rc != MosquittoLibrary.success {
                    noteFailure(rc)
                    switchBroker = true
                    continue
                }
                socketOpen = true
            }
            rc = mosquitto_loop(handle, 1000, 1)
            if rc != MosquittoLibrary.success {
                if isStopping { break }
                if !state.withLock({ $0.fallbackPending }) { noteFailure(rc) }
                socketOpen = false
                // A broker that accepted this attempt is tried once more (it may be back at once);
                // one that never accepted it hands over to the next broker in the list.
                switchBroker = !state.withLock { $0.attemptAccepted }
                continue
            }
            let connected = state.withLock { $0.connection == .connected }
            if logging == connected {
                setLibraryLogging(!connected)
                logging = !connected
            }
        }
        // Let the DISCONNECT queued by close() reach the broker, so it does not publish the will.
        var rounds = 0
        while mosquitto_socket(handle) != -1 && rounds < 20 {
            _ = mosquitto_loop(handle, 100, 1)
            rounds += 1
        }
    }

    /// Opens a connection attempt to ``currentURL`` with ``spokenVersion``. Non-blocking, except
    /// when a persistent session's CONNECT properties must change (set for MQTT 5: the session
    /// expiry; cleared for 3.1.1, where libmosquitto refuses any): only `connect_bind_v5` sets
    /// them, and it connects blocking. `sessionProperties` tracks whether libmosquitto holds them.
    private func beginAttempt(sessionProperties: inout Bool) -> Int32 {
        let url = currentURL
        let keepAlive = Int32(configuration.keepAlive.components.seconds)
        state.withLock { $0.attemptAccepted = false }
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, spokenVersion.protocolLevel)
        if configuration.failoverURLs.contains(where: {
            $0.username != configuration.url.username || $0.password != configuration.url.password
        }) {
            _ = mosquitto_username_pw_set(handle, url.username, url.password)
        }
        let wantsProperties = spokenVersion == .v5 && !configuration.cleanSession
        if wantsProperties != sessionProperties {
            var properties: OpaquePointer?
            if wantsProperties {
                let seconds = UInt32(clamping: configuration.sessionExpiry.components.seconds)
                mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), seconds)
            }
            let rc = mosquitto_connect_bind_v5(handle, url.host, Int32(url.port), keepAlive, nil, properties)
            if properties != nil { mosquitto_property_free_all(&properties) }
            sessionProperties = wantsProperties
            return rc
        }
        // Sets the host (it may have changed since the last attempt) and starts a fresh attempt;
        // libmosquitto keeps its queued QoS ≥ 1 messages and the session's CONNECT properties.
        return mosquitto_connect_bind_async(handle, url.host, Int32(url.port), keepAlive, nil)
    }

    /// Moves to the next broker of the list (back to the configured protocol version) and says so;
    /// returns whether the list wrapped around (every broker failed once: time to back off further).
    private func advanceBroker() -> Bool {
        let count = configuration.brokers.count
        guard count > 1 else { return true }
        let from = broker
        let next = (brokerIndex.load(ordering: .relaxed) + 1) % count
        brokerIndex.store(next, ordering: .relaxed)
        speaksV311.store(configuration.protocolVersion == .v311, ordering: .relaxed)
        logger.warning("MQTT failing over to the next broker", metadata: ["from": "\(from)", "to": "\(broker)"])
        return next == 0
    }

    /// Records why the connection failed, unless a callback already recorded a more precise reason
    /// (a CONNACK refusal) for this attempt.
    private func noteFailure(_ rc: Int32) {
        let detail = lastLibraryError.withLock { $0 }
        let error: MQTTError
        if rc == MOSQ_ERR_TLS.rawValue {
            var text = detail ?? "TLS error"
            if let ca = configuration.tls.caFile { text += " (CA file \(ca))" }
            error = .tlsHandshakeFailed(broker: broker, detail: text)
        } else {
            var reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : MosquittoLibrary.errorText(rc)
            if let detail, !reason.contains(detail) { reason += " (\(detail))" }
            error = .connectionLost(broker: broker, reason: reason)
        }
        let shouldLog = state.withLock { state -> Bool in
            // Every failed attempt is said (libmosquitto reports a refused TCP connection through the
            // disconnect callback first, so the state alone would hide it); a lost connection was
            // said by didDisconnect already.
            let failedAttempt = !state.attemptAccepted
            switch state.connection {
            case .disconnected(let previous):
                // Keep a refusal recorded by didConnect for this attempt; replace older generic reasons.
                if previous.isConfigurationProblem && !error.isConfigurationProblem { return failedAttempt }
                state.setConnection(.disconnected(error))
                return failedAttempt
            case .closed, .idle:
                return false
            case .connecting, .connected:
                state.setConnection(.disconnected(error))
                if error.isConfigurationProblem {
                    for waiter in state.connectWaiters { waiter.resume(returning: .failure(error)) }
                    state.connectWaiters.removeAll()
                }
                return true
            }
        }
        if shouldLog && !isStopping {
            let delay = state.withLock { $0.reconnectDelay }
            logger.warning(
                "MQTT connection failed; retrying", metadata: ["broker": "\(broker)", "error": "\(error)", "retryIn": "\(delay)"])
        }
    }

    /// Sleeps for the current reconnect delay (±20 % jitter) and, when `grow`, doubles it up to the
    /// bound (with a list of brokers: once per round through the list). Returns `false` when the client is closing.
    private func waitBeforeReconnect(grow: Bool) -> Bool {
        let delay = state.withLock { state -> Duration in
            let delay = state.reconnectDelay
            if grow { state.reconnectDelay = min(delay * 2, configuration.reconnectDelayMax) }
            return delay
        }
        let seconds = (Double(delay.components.seconds) + Double(delay.components.attoseconds) * 1e-18) * Double.random(in: 0.8...1.2)
        let deadline = Date(timeIntervalSinceNow: seconds)
        wakeup.lock()
        defer { wakeup.unlock() }
        while !isStopping {
            if !wakeup.wait(until: deadline) { break }
        }
        return !isStopping
    }
}
