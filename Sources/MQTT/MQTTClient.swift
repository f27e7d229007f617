import CMosquitto
public import Logging
public import ServiceLifecycle

/// An MQTT client over one libmosquitto handle, for Swift concurrency.
///
/// ```swift
/// let client = try MQTTClient(configuration: MQTTConfiguration(url: try BrokerURL(parsing: "mqtt://localhost")))
/// try client.connect()                       // starts the network thread; returns at once
/// try await client.connected()               // optional: wait for the first CONNACK
/// let messages = client.messages              // take the stream before subscribing
/// try await client.subscribe("beaconfleet/v1/gateways/+/status")
/// try await client.publish(topic: "a/b", payload: Array("hi".utf8), qos: .atLeastOnce)  // awaits PUBACK
/// for await message in messages { print(message.topic) }
/// await client.disconnect()
/// ```
///
/// - The client reconnects by itself with bounded exponential backoff and re-subscribes; watch
///   ``connectionStates``.
/// - QoS ≥ 1 messages published while disconnected are queued and sent after reconnecting; at most
///   ``MQTTConfiguration/maxQueued`` messages may be outstanding, beyond which publishing throws
///   ``MQTTError/queueFull(topic:limit:)``.
/// - As a `Service` under a `ServiceGroup` it connects in `run()` and disconnects on graceful shutdown;
///   list it before the services that use it.
public final class MQTTClient: Sendable {
    /// The configuration the client was made with.
    public let configuration: MQTTConfiguration
    let core: ClientCore

    /// A client for `configuration`. Checks the configuration and the TLS files; does not connect yet.
    public init(configuration: MQTTConfiguration, logger: Logger = Logger(label: "beaconfleet.mqtt")) throws(MQTTError) {
        try configuration.validate()
        self.configuration = configuration
        var logger = logger
        logger[metadataKey: "mqtt.client"] = "\(configuration.clientID)"
        core = try ClientCore(configuration: configuration, logger: logger)
        // The retained box libmosquitto's callbacks reach; released by `ClientCore.close()` after mosquitto_destroy.
        mosquitto_user_data_set(core.handle, Unmanaged.passRetained(core).toOpaque())
    }

    /// A client for `url` with default settings.
    public convenience init(url: BrokerURL, clientID: String? = nil, logger: Logger = Logger(label: "beaconfleet.mqtt")) throws(MQTTError) {
        try self.init(configuration: MQTTConfiguration(url: url, clientID: clientID), logger: logger)
    }

    deinit {
        core.close()
    }

    // MARK: Connection

    /// Starts the network thread, which connects and keeps reconnecting until ``disconnect()``.
    /// Returns at once (the broker may be down); calling it again does nothing.
    /// Throws ``MQTTError/closed`` after ``disconnect()``.
    public func connect() throws(MQTTError) {
        try core.startNetworkThread()
    }

    /// Waits until the client is connected (now or after a (re)connect). Throws at once if the broker
    /// refuses the configuration (bad credentials, not authorised, TLS failure) or the client is closed;
    /// keeps waiting while the broker is merely unreachable. Bound it with a timeout of your own.
    public func connected() async throws(MQTTError) {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, MQTTError>, Never>) in
            core.state.withLock { state in
                switch state.connection {
                case .connected: waiter.resume(returning: .success(()))
                case .closed: waiter.resume(returning: .failure(.closed))
                case .disconnected(let error) where error.isConfigurationProblem: waiter.resume(returning: .failure(error))
                default:
                    if state.acceptsWork {
                        state.connectWaiters.append(waiter)
                    } else {
                        waiter.resume(returning: .failure(.closed))
                    }
                }
            }
        }
        try result.get()
    }

    /// The protocol version the broker accepted on the last connection (MQTT 3.1.1 when it refused
    /// MQTT 5 and ``MQTTConfiguration/fallsBackToV311`` allowed it); `nil` before the first connection.
    public var negotiatedProtocolVersion: MQTTProtocolVersion? {
        core.state.withLock { $0.negotiated?.version }
    }

    /// The broker of the last accepted connection (one of ``MQTTConfiguration/brokers``); `nil` before
    /// the first connection.
    public var connectedBroker: BrokerURL? {
        core.state.withLock { $0.negotiated?.url }
    }

    /// The connection state now.
    public var connectionState: MQTTConnectionState {
        core.state.withLock { $0.connection }
    }

    /// Every change of the connection state, starting with the current one. Each access returns a new,
    /// independent stream; it ends when the client is closed.
    public var connectionStates: AsyncStream<MQTTConnectionState> {
        observerStream(.bufferingNewest(64)) {
            $0.addStateObserver($1)
        } remove: {
            $0.stateObservers[$1] = nil
        }
    }

    /// Closes the connection cleanly (DISCONNECT, so the broker does not publish the will), joins the
    /// network thread and releases the libmosquitto handle. Unacknowledged publishes fail with
    /// ``MQTTError/closed``; call ``drain()`` first to wait for them. The client cannot be reused.
    public func disconnect() async {
        core.close()
    }

    // MARK: Publishing

    /// Publishes `payload` on `topic`. For QoS 0 it returns once libmosquitto has the message; for
    /// QoS 1 and 2 it waits for the broker's PUBACK / PUBCOMP (across reconnects if need be).
    ///
    /// Throws ``MQTTError/queueFull(topic:limit:)`` when ``MQTTConfiguration/maxQueued`` messages are
    /// outstanding, ``MQTTError/notConnected(topic:)`` for QoS 0 while disconnected,
    /// ``MQTTError/publishRejected(topic:reason:)`` when the broker refuses it (MQTT 5),
    /// ``MQTTError/invalidTopic(_:reason:)``, ``MQTTError/payloadTooLarge(topic:size:)``, ``MQTTError/closed``.
    public func publish(
        topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = false, userProperties: [MQTTUserProperty] = []
    ) async throws(MQTTError) {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, MQTTError>, Never>) in
            let handedOver = payload.withUnsafeBytes { bytes in
                Result { () throws(MQTTError) in
                    try core.publish(topic: topic, payload: bytes, qos: qos, retain: retain, userProperties: userProperties, waiter: waiter)
                }
            }
            if case .failure = handedOver { waiter.resume(returning: handedOver) }
        }
        try result.get()
    }

    /// Publishes a UTF-8 string; see ``publish(topic:payload:qos:retain:userProperties:)``.
    public func publish(topic: String, string: String, qos: QoS = .atLeastOnce, retain: Bool = false) async throws(MQTTError) {
        try await publish(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain)
    }

    /// Queues a publish and returns at once, without waiting for the broker: the fast path for
    /// throughput. Delivery is still counted against ``MQTTConfiguration/maxQueued``; ``drain()`` waits
    /// until everything queued is done. Throws like ``publish(topic:payload:qos:retain:userProperties:)``
    /// for what can be known at once.
    public func enqueue(
        topic: String, payload: [UInt8], qos: QoS = .atLeastOnce, retain: Bool = false, userProperties: [MQTTUserProperty] = []
    ) throws(MQTTError) {
        try payload.withUnsafeBytes { bytes in
            Result { () throws(MQTTError) in
                try core.publish(topic: topic, payload: bytes, qos: qos, retain: retain, userProperties: userProperties, waiter: nil)
            }
        }.get()
    }

    /// Messages accepted but not yet done: QoS 0 not yet written, QoS ≥ 1 not yet acknowledged.
    public var outstandingMessageCount: Int {
        core.state.withLock { $0.outstanding }
    }

    /// Waits until no message is outstanding (every QoS ≥ 1 message acknowledged, every QoS 0 message
    /// written), or the client is closed.
    public func drain() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            core.state.withLock { state in
                if state.outstanding == 0 || !state.acceptsWork {
                    waiter.resume()
                } else {
                    state.drainWaiters.append(waiter)
                }
            }
        }
    }

    // MARK: Subscribing

    /// Subscribes to `filter` (wildcards `+` and `#` allowed) and waits for the broker's SUBACK; returns the
    /// granted QoS. While disconnected it waits for the next connection. The subscription is renewed after
    /// every reconnect that lost the session. Throws ``MQTTError/invalidFilter(_:reason:)``,
    /// ``MQTTError/subscriptionRefused(filter:reason:)`` or ``MQTTError/closed``.
    @discardableResult
    public func subscribe(_ filter: String, qos: QoS = .atLeastOnce) async throws(MQTTError) -> QoS {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<QoS, MQTTError>, Never>) in
            do throws(MQTTError) {
                try core.subscribe(filter, qos: qos, waiter: waiter)
            } catch {
                waiter.resume(returning: .failure(error))
            }
        }
        return try result.get()
    }

    /// Removes the subscription to `filter` (exactly as it was subscribed) and waits for the UNSUBACK
    /// when connected.
    public func unsubscribe(_ filter: String) async throws(MQTTError) {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, MQTTError>, Never>) in
            do throws(MQTTError) {
                try core.unsubscribe(filter, waiter: waiter)
            } catch {
                waiter.resume(returning: .failure(error))
            }
        }
        try result.get()
    }

    /// Every message received on any subscription. Each access returns a new, independent stream that
    /// sees the messages arriving from then on (the first stream also gets those that arrived while
    /// nobody was listening). Each stream buffers up to ``MQTTConfiguration/messageBufferLimit`` messages;
    /// beyond that the newest are dropped and counted in ``droppedMessageCount``. Ends when the client closes.
    public var messages: AsyncStream<MQTTMessage> {
        observerStream(.bufferingOldest(core.configuration.messageBufferLimit)) {
            $0.addMessageObserver(.stream($1))
        } remove: {
            $0.messageObservers[$1] = nil
        }
    }

    /// A stream that `add` files as an observer with the client's state locked; when `add` files
    /// nothing (the client is closed) the stream ends at once, and when the stream ends `remove`
    /// forgets the observer.
    private func observerStream<Element>(
        _ bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy,
        add: (inout CoreState, AsyncStream<Element>.Continuation) -> UInt64?,
        remove: @escaping @Sendable (inout CoreState, UInt64) -> Void
    ) -> AsyncStream<Element> {
        let core = self.core
        return AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            guard let id = core.state.withLock({ add(&$0, continuation) }) else {
                continuation.finish()
                return
            }
            continuation.onTermination = { _ in core.state.withLock { remove(&$0, id) } }
        }
    }

    /// Calls `handler` with every message received on any subscription, on the client's network
    /// thread, one at a time and in order (first those that arrived while nobody was listening),
    /// until the registration is cancelled or the client closes.
    ///
    /// Unlike a ``messages`` stream nothing is buffered and nothing dropped here, and no task is
    /// woken per message: the handler decides. It must return quickly and never wait (the client
    /// reads nothing meanwhile), and must not call this client (the messages parked before it are
    /// handed over under the client's lock, so that no newer one overtakes them): hand the message
    /// to your own queue.
    public func handleMessages(_ handler: @escaping @Sendable (MQTTMessage) -> Void) -> MessageHandlerRegistration {
        handleReceived { handler($0.message()) }
    }

    /// ``handleMessages(_:)`` without the copy: `handler` gets each message with its payload still
    /// where libmosquitto put it (``ReceivedMessage``), and copies it (``ReceivedMessage/message()``)
    /// or takes it over (``ReceivedMessage/takePayload()``) only if it keeps it. The same rules: on
    /// the network thread, in order, quick, never calling this client. Several handlers of one
    /// client get each message one after another in no set order, and a payload taken is empty for
    /// those after: take only a message no other handler of the client reads.
    public func handleReceived(_ handler: @escaping @Sendable (inout ReceivedMessage) -> Void) -> MessageHandlerRegistration {
        let core = self.core
        let id = core.state.withLock { $0.addMessageObserver(.handler(handler)) }
        return MessageHandlerRegistration {
            guard let id else { return }
            _ = core.state.withLock { $0.messageObservers.removeValue(forKey: id) }
        }
    }

    /// Incoming messages dropped because a ``messages`` consumer fell more than
    /// ``MQTTConfiguration/messageBufferLimit`` messages behind.
    public var droppedMessageCount: Int {
        core.droppedMessages.load(ordering: .relaxed)
    }
}

extension MQTTClient: Service {
    /// Connects, runs until graceful shutdown (or cancellation), then disconnects. Connection problems
    /// do not end it (the client keeps reconnecting); only an unusable configuration does.
    public func run() async throws {
        try connect()
        try? await gracefulShutdown()
        await disconnect()
    }
}
