import CMosquitto
import Foundation
import Logging
import Synchronization

/// The state behind one ``MQTTClient``: the libmosquitto handle, the network thread and every
/// waiter. It is the retained box libmosquitto's callbacks reach through `userdata`.
///
/// Locking: `state` is never held while libmosquitto might call back into us on the same thread,
/// except around `mosquitto_publish`/`subscribe`/`unsubscribe`, which (in threaded mode) only queue
/// packets and never invoke callbacks other than the log callback, which takes no lock of ours.
final class ClientCore: Sendable {
    let configuration: MQTTConfiguration
    let logger: Logger
    /// The libmosquitto handle; libmosquitto's calls are thread safe, and ``close()`` destroys it only
    /// after the network thread is joined and while `state` forbids any further call.
    nonisolated(unsafe) let handle: OpaquePointer
    let state: Locked<CoreState>
    /// The last error libmosquitto logged (TLS details come only this way). Separate lock: the log
    /// callback may run inside a libmosquitto call made while `state` is held.
    let lastLibraryError = Locked<String?>(nil)
    let stopRequested = Atomic<Bool>(false)
    let droppedMessages = Atomic<Int>(0)
    /// Wakes the network thread from its reconnect delay when the client closes.
    let wakeup = NSCondition()
    /// Which of ``MQTTConfiguration/brokers`` the network thread connects to (or tries) now.
    let brokerIndex = Atomic<Int>(0)
    /// Whether the current attempt speaks MQTT 3.1.1 (configured, or fallen back from 5).
    let speaksV311: Atomic<Bool>
    /// The network thread's kernel thread id once it runs (0 before): what `/proc/self/task/…` and `perf` name it by.
    let networkThreadID = Atomic<Int32>(0)

    init(configuration: MQTTConfiguration, logger: Logger) throws(MQTTError) {
        _ = MosquittoLibrary.initialized
        self.configuration = configuration
        self.logger = logger
        self.speaksV311 = Atomic(configuration.protocolVersion == .v311)
        guard let handle = mosquitto_new(configuration.clientID, configuration.cleanSession, nil) else {
            throw .library(operation: "mosquitto_new", code: Int(errno), message: String(cString: strerror(errno)))
        }
        self.handle = handle
        self.state = Locked(CoreState(reconnectDelay: configuration.reconnectDelayMin))
        do {
            try applyConfiguration()
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
    }

    /// The broker connected to or being tried now.
    var currentURL: BrokerURL { configuration.brokers[brokerIndex.load(ordering: .relaxed)] }
    /// ``currentURL`` for messages (password hidden).
    var broker: String { currentURL.description }
    /// The protocol version of the current attempt.
    var spokenVersion: MQTTProtocolVersion { speaksV311.load(ordering: .relaxed) ? .v311 : .v5 }

    // MARK: Configuration

    private func check(_ rc: Int32, _ operation: String) throws(MQTTError) {
        guard rc == MosquittoLibrary.success else {
            throw .library(operation: operation, code: Int(rc), message: MosquittoLibrary.errorText(rc))
        }
    }

    private func applyConfiguration() throws(MQTTError) {
        let config = configuration
        try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, config.protocolVersion.protocolLevel), "set protocol version")
        try check(mosquitto_int_option(handle, MOSQ_OPT_SEND_MAXIMUM, Int32(config.maxInflight)), "set maxInflight")
        try check(mosquitto_int_option(handle, MOSQ_OPT_RECEIVE_MAXIMUM, Int32(config.receiveMaximum)), "set receiveMaximum")
        try check(mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, config.tcpNoDelay ? 1 : 0), "set TCP_NODELAY")
        try check(mosquitto_threaded_set(handle, true), "mosquitto_threaded_set")
        if let username = config.url.username {
            try check(mosquitto_username_pw_set(handle, username, config.url.password), "set user name and password")
        }
        if let will = config.will {
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(handle, will.topic, Int32(bytes.count), bytes.baseAddress, will.qos.rawValue, will.retain, nil)
            }
            if rc == MOSQ_ERR_INVAL.rawValue || rc == MOSQ_ERR_MALFORMED_UTF8.rawValue {
                throw .invalidTopic(will.topic, reason: "not a valid last-will topic")
            }
            if rc == MOSQ_ERR_PAYLOAD_SIZE.rawValue { throw .payloadTooLarge(topic: will.topic, size: will.payload.count) }
            try check(rc, "set last will")
        }
        if config.url.usesTLS {
            try applyTLS(config.tls)
        }
        installCallbacks()
    }

    private func applyTLS(_ tls: MQTTTLSFiles) throws(MQTTError) {
        for (role, path) in [("CA file", tls.caFile), ("certificate file", tls.certificateFile), ("key file", tls.keyFile)] {
            guard let path else { continue }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw .tlsFile(role: role, path: path, reason: "no such file")
            }
            guard !isDirectory.boolValue else { throw .tlsFile(role: role, path: path, reason: "is a directory, not a PEM file") }
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw .tlsFile(role: role, path: path, reason: "not readable (permissions)")
            }
        }
        if tls.caFile == nil {
            try check(mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "use the system's CA certificates")
        }
        let rc = mosquitto_tls_set(handle, tls.caFile, nil, tls.certificateFile, tls.keyFile, nil)
        if rc != MosquittoLibrary.success {
            let detail = lastLibraryError.withLock { $0 } ?? MosquittoLibrary.errorText(rc)
            let path = tls.keyFile ?? tls.certificateFile ?? tls.caFile ?? "(system CA store)"
            throw .tlsFile(role: "files", path: path, reason: "rejected by libmosquitto: \(detail)")
        }
        if tls.allowsAnyHostName {
            try check(mosquitto_tls_insecure_set(handle, true), "mosquitto_tls_insecure_set")
        }
    }

    private func installCallbacks() {
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, flags, _ in
            ClientCore.from(userdata).didConnect(code: rc, sessionPresent: flags & 1 != 0)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, userdata, rc, _ in
            ClientCore.from(userdata).didDisconnect(code: rc)
        }
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reason, _ in
            ClientCore.from(userdata).didComplete(messageID: mid, reason: reason)
        }
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, properties in
            guard let message else { return }
            // Mutable: a handler may take the payload (ReceivedMessage.takePayload()).
            ClientCore.from(userdata).didReceive(UnsafeMutablePointer(mutating: message), properties: properties)
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, userdata, mid, count, granted, _ in
            let first = count > 0 ? granted?.pointee ?? 0x80 : 0x80
            ClientCore.from(userdata).didSubscribe(messageID: mid, granted: first)
        }
        mosquitto_unsubscribe_v5_callback_set(handle) { _, userdata, mid, _ in
            ClientCore.from(userdata).didUnsubscribe(messageID: mid)
        }
    }

    /// Logs only while not connected (connection, TLS and refusal details); libmosquitto formats a
    /// line for every packet when a log callback is set, which costs publish throughput.
    func setLibraryLogging(_ enabled: Bool) {
        if enabled {
            mosquitto_log_callback_set(handle) { _, userdata, level, text in
                guard let text else { return }
                ClientCore.from(userdata).didLog(level: level, text: String(cString: text))
            }
        } else {
            mosquitto_log_callback_set(handle, nil)
        }
    }

    static func from(_ userdata: UnsafeMutableRawPointer?) -> ClientCore {
        Unmanaged<ClientCore>.fromOpaque(userdata!).takeUnretainedValue()
    }
}

/// Everything mutable about a client, guarded by ``ClientCore/state``.
struct CoreState {
    enum Phase {
        case created
        case running(pthread_t)
        case closing
        case closed
    }

    struct Subscription {
        var qos: QoS
        /// Whether the broker acknowledged it on the current session.
        var confirmed: Bool
    }

    struct PendingAck {
        var topic: String
        var waiter: CheckedContinuation<Result<Void, MQTTError>, Never>?
    }

    var phase: Phase = .created
    var connection: MQTTConnectionState = .idle
    /// The broker and version of the last accepted connection (kept while reconnecting).
    var negotiated: (url: BrokerURL, version: MQTTProtocolVersion)?
    /// Whether the broker accepted the current connection attempt (decides failover after a failure).
    var attemptAccepted = false
    /// The broker refused MQTT 5 as unsupported and the configuration allows 3.1.1: retry with it at once.
    var fallbackPending = false
    /// User properties were dropped because the broker speaks 3.1.1 (logged once).
    var droppedUserProperties = false
    var reconnectDelay: Duration
    var subscriptions: [String: Subscription] = [:]
    var subscribeRequests: [Int32: String] = [:]
    var subscribeWaiters: [String: [CheckedContinuation<Result<QoS, MQTTError>, Never>]] = [:]
    var unsubscribeWaiters: [Int32: CheckedContinuation<Result<Void, MQTTError>, Never>] = [:]
    /// QoS ≥ 1 messages handed to libmosquitto and not yet acknowledged, by message id.
    var pendingAcks: [Int32: PendingAck] = [:]
    /// QoS 0 messages handed to libmosquitto and not yet written to the socket.
    var pendingAtMostOnce = 0
    /// Publishes between their reservation and their registration (libmosquitto call in progress).
    var registering = 0
    /// Completions (message id → reason code) seen while `registering > 0` for ids not yet registered.
    var earlyCompletions: [Int32: Int32] = [:]
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    var connectWaiters: [CheckedContinuation<Result<Void, MQTTError>, Never>] = []
    var stateObservers: [UInt64: AsyncStream<MQTTConnectionState>.Continuation] = [:]
    var messageObservers: [UInt64: MessageObserver] = [:]
    /// Messages that arrived while nobody observed them; handed to the first observer.
    var parkedMessages: [MQTTMessage] = []
    var nextObserverID: UInt64 = 0

    var acceptsWork: Bool {
        switch phase {
        case .created, .running: true
        case .closing, .closed: false
        }
    }

    var outstanding: Int { pendingAcks.count + pendingAtMostOnce + registering }

    /// Once no registration is in progress, completions left in `earlyCompletions` belong to QoS 0
    /// messages registered earlier (which never enter `pendingAcks`): count them as done.
    mutating func finishRegistrations() {
        if registering == 0 && !earlyCompletions.isEmpty {
            pendingAtMostOnce = max(0, pendingAtMostOnce - earlyCompletions.count)
            earlyCompletions.removeAll(keepingCapacity: true)
        }
        resumeDrainWaitersIfEmpty()
    }

    /// Tells `observer` the current connection state and files it under a new id; nil (not filed)
    /// once the client takes no more work.
    mutating func addStateObserver(_ observer: AsyncStream<MQTTConnectionState>.Continuation) -> UInt64? {
        observer.yield(connection)
        guard acceptsWork else { return nil }
        let id = nextObserverID
        nextObserverID += 1
        stateObservers[id] = observer
        return id
    }

    /// Hands `observer` the messages that arrived while nobody observed them (under the lock, so
    /// that no newer message overtakes them) and files it under a new id; nil (not filed, nothing
    /// handed) once the client takes no more work.
    mutating func addMessageObserver(_ observer: MessageObserver) -> UInt64? {
        guard acceptsWork else { return nil }
        for message in parkedMessages {
            switch observer {
            case .stream(let continuation): continuation.yield(message)
            case .handler(let handler): message.withReceived { handler(&$0) }
            }
        }
        parkedMessages.removeAll()
        let id = nextObserverID
        nextObserverID += 1
        messageObservers[id] = observer
        return id
    }

    /// Sets the connection state and tells every observer.
    mutating func setConnection(_ new: MQTTConnectionState) {
        guard connection != new else { return }
        connection = new
        for observer in stateObservers.values { observer.yield(new) }
    }

    mutating func resumeDrainWaitersIfEmpty() {
        guard outstanding == 0, !drainWaiters.isEmpty else { return }
        for waiter in drainWaiters { waiter.resume() }
        drainWaiters.removeAll()
    }
}
