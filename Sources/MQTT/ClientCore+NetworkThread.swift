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
        let url = configuration.url
        let keepAlive = Int32(configuration.keepAlive.components.seconds)
        var logging = true
        setLibraryLogging(true)
        var rc: Int32
        if configuration.protocolVersion == .v5 && !configuration.cleanSession {
            // A persistent MQTT 5 session needs a session expiry interval, which only the CONNECT properties carry.
            var properties: OpaquePointer?
            let seconds = UInt32(clamping: configuration.sessionExpiry.components.seconds)
            mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), seconds)
            rc = mosquitto_connect_bind_v5(handle, url.host, Int32(url.port), keepAlive, nil, properties)
            mosquitto_property_free_all(&properties)
        } else {
            rc = mosquitto_connect_async(handle, url.host, Int32(url.port), keepAlive)
        }
        var socketOpen = rc == MosquittoLibrary.success
        if !socketOpen { noteFailure(rc) }

        while !isStopping {
            if !socketOpen {
                guard waitBeforeReconnect() else { break }
                if !logging {
                    setLibraryLogging(true)
                    logging = true
                }
                lastLibraryError.withLock { $0 = nil }
                state.withLock { $0.setConnection(.connecting) }
                rc = mosquitto_reconnect_async(handle)
                if rc != MosquittoLibrary.success {
                    noteFailure(rc)
                    continue
                }
                socketOpen = true
            }
            rc = mosquitto_loop(handle, 1000, 1)
            if rc != MosquittoLibrary.success {
                if isStopping { break }
                noteFailure(rc)
                socketOpen = false
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
        let firstFailure = state.withLock { state -> Bool in
            switch state.connection {
            case .disconnected(let previous):
                // Keep a refusal recorded by didConnect for this attempt; replace older generic reasons.
                if previous.isConfigurationProblem && !error.isConfigurationProblem { return false }
                state.setConnection(.disconnected(error))
                return false
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
        if firstFailure {
            logger.warning("MQTT connection failed; retrying", metadata: ["broker": "\(broker)", "error": "\(error)"])
        }
    }

    /// Sleeps for the current reconnect delay (±20 % jitter) and doubles it up to the bound.
    /// Returns `false` when the client is closing.
    private func waitBeforeReconnect() -> Bool {
        let delay = state.withLock { state -> Duration in
            let delay = state.reconnectDelay
            state.reconnectDelay = min(delay * 2, configuration.reconnectDelayMax)
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
