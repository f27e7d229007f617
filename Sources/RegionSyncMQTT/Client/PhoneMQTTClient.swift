/// An MQTT 3.1.1 client for one connection over an ``MQTTByteStream``, in pure Swift: connect,
/// subscribe, publish at QoS 0 and 1, receive, keep alive, disconnect. Made for a woken phone:
/// every wait ends by the deadline the caller gives (the wake's budget) or when the calling task
/// is cancelled, and every failure is a ``PhoneMQTTError`` naming its cause.
///
/// ```swift
/// let client = PhoneMQTTClient(stream: stream, options: .init(clientID: "phone-1", username: "phone-1", password: secret))
/// let messages = client.messages                          // everything delivered, from the CONNACK on
/// try await client.connect(deadline: .now + .seconds(3))
/// try await client.subscribe("beaconfleet/v1/clients/phone-1/regions", deadline: .now + .seconds(3))
/// try await client.publish(report, to: "beaconfleet/v1/clients/phone-1/report", qos: .atLeastOnce, deadline: .now + .seconds(3))
/// await client.disconnect()
/// ```
///
/// Messages are delivered through ``messages`` as soon as they are decoded, whether or not the
/// `SUBACK` came first: a broker may send a retained message before it (NATS can), and it is never
/// lost. A QoS 1 delivery is acknowledged right after it is put in ``messages``. One connection per
/// client: after ``disconnect()`` or the connection's end, make a new client.
public actor PhoneMQTTClient {
    /// The connection's settings.
    public struct Options: Sendable, Hashable {
        /// The client identifier (unique per broker; a second connection with the same id takes over).
        public var clientID: String
        /// The user name, if the broker wants one.
        public var username: String?
        /// The password (MQTT 3.1.1 sends one only with a user name).
        public var password: String?
        /// Start a fresh session: nothing is kept for this client after the connection (a phone reconnects every wake).
        public var cleanSession: Bool
        /// The longest time without a packet from this client: a `PINGREQ` goes out when nothing else
        /// did for three quarters of it. Whole seconds, 0 (off) or 1–65,535 s.
        public var keepAlive: Duration
        /// The longest packet accepted from the broker.
        public var maximumPacketSize: Int
        /// Messages kept in ``PhoneMQTTClient/messages`` until read; beyond it the oldest are dropped.
        public var maximumBufferedMessages: Int

        /// Options for `clientID`: clean session, keep-alive 30 s, packets up to 1 MiB, 1,000 messages buffered.
        public init(
            clientID: String, username: String? = nil, password: String? = nil, cleanSession: Bool = true,
            keepAlive: Duration = .seconds(30),
            maximumPacketSize: Int = 1 << 20, maximumBufferedMessages: Int = 1000
        ) {
            self.clientID = clientID
            self.username = username
            self.password = password
            self.cleanSession = cleanSession
            self.keepAlive = keepAlive
            self.maximumPacketSize = maximumPacketSize
            self.maximumBufferedMessages = maximumBufferedMessages
        }
    }

    /// Where the connection is.
    private enum Phase {
        case idle
        case connecting
        case connected
        /// Ended: `nil` when this client disconnected, otherwise why.
        case closed(PhoneMQTTError?)
    }

    /// The stream this client speaks over.
    public nonisolated let stream: any MQTTByteStream
    /// The settings it connects with.
    public nonisolated let options: Options
    /// The broker, for messages (``MQTTByteStream/endpoint``).
    public nonisolated let endpoint: String
    /// Every `PUBLISH` the broker delivers, in order; ends when the connection does. One consumer.
    public nonisolated let messages: AsyncStream<MQTTPacket.Publish>
    private let sink: AsyncStream<MQTTPacket.Publish>.Continuation

    private var phase = Phase.idle
    private var decoder: MQTTPacketDecoder
    private var identifiers = PacketIdentifiers()
    private var connack: Promise<MQTTPacket.ConnAck>?
    private var subacks: [UInt16: Promise<MQTTPacket.SubAck>] = [:]
    private var pubacks: [UInt16: Promise<Void>] = [:]
    private var pings: [Promise<Void>] = []
    private var reader: Task<Void, Never>?
    private var keepAliveTask: Task<Void, Never>?
    /// When the last packet went out (keep-alive pings only after a quiet `keepAlive`).
    private var lastSent = ContinuousClock.now

    /// A client that will speak over `stream`; nothing happens before ``connect(deadline:)``.
    public init(stream: any MQTTByteStream, options: Options) {
        self.stream = stream
        self.options = options
        self.endpoint = stream.endpoint
        self.decoder = MQTTPacketDecoder(maximumPacketSize: options.maximumPacketSize)
        (messages, sink) = AsyncStream.makeStream(
            of: MQTTPacket.Publish.self, bufferingPolicy: .bufferingNewest(max(1, options.maximumBufferedMessages)))
    }

    deinit {
        stream.close()
        sink.finish()
    }

    /// Whether the broker accepted the connection and it has not ended.
    public var isConnected: Bool {
        if case .connected = phase { return true }
        return false
    }

    /// Whether packets are still read: connecting or connected.
    private var isOpen: Bool {
        switch phase {
        case .connecting, .connected: true
        case .idle, .closed: false
        }
    }

    /// Why the connection ended (`nil` while it lasts, before it, or after ``disconnect()``).
    public var closeReason: PhoneMQTTError? {
        if case .closed(let reason) = phase { return reason }
        return nil
    }

    // MARK: Operations

    /// Opens the stream, sends `CONNECT` and returns once the broker accepted it (`CONNACK` 0), with
    /// whether the broker resumed a session. A refusal is ``PhoneMQTTError/connectionRefused(endpoint:_:)``
    /// with the broker's return code; by `deadline`, ``PhoneMQTTError/timedOut(step:after:)``.
    /// Either way the connection is closed.
    @discardableResult
    public func connect(deadline: ContinuousClock.Instant) async throws(PhoneMQTTError) -> Bool {
        guard case .idle = phase else { throw .invalidRequest("connect on a client that already connected once; make a new client") }
        let packet = MQTTPacket.connect(try connectPacket())
        phase = .connecting
        do throws(PhoneMQTTError) {
            let opened = Promise<Void>()
            stream.open { opened.resolve($0) }
            try await opened.value(until: deadline, "the connection to \(endpoint)")
            startReading()
            let answer = Promise<MQTTPacket.ConnAck>()
            connack = answer
            try await send(packet, deadline: deadline)
            let connack = try await answer.value(until: deadline, "CONNACK from \(endpoint)")
            self.connack = nil
            guard connack.returnCode == .accepted else { throw .connectionRefused(endpoint: endpoint, connack.returnCode) }
            // `phase` is `.connected` already (set when the CONNACK was read), unless the connection ended since.
            if case .closed(let reason) = phase { throw .notConnected(step: "connect", cause: reason) }
            startKeepAlive()
            return connack.sessionPresent
        } catch {
            end(error)
            throw error
        }
    }

    /// Subscribes to `filter` and returns the QoS granted once the `SUBACK` arrives. A refusal
    /// (0x80) is ``PhoneMQTTError/subscriptionRefused(endpoint:filter:)``. Messages on `filter` go to
    /// ``messages``, the retained one too, even when it comes before the `SUBACK`.
    @discardableResult
    public func subscribe(
        _ filter: String, qos: MQTTPacket.QoS = .atLeastOnce, deadline: ContinuousClock.Instant
    ) async throws(PhoneMQTTError) -> MQTTPacket.QoS {
        guard qos != .exactlyOnce else { throw .invalidRequest("subscribing at QoS 2 (this client speaks QoS 0 and 1)") }
        guard MQTTTopic.isValidFilter(filter) else { throw .invalidRequest("subscribing to the invalid topic filter '\(filter)'") }
        try requireConnected("subscribe to \(filter)")
        let identifier = try nextIdentifier()
        let answer = Promise<MQTTPacket.SubAck>()
        subacks[identifier] = answer
        defer { subacks[identifier] = nil }
        try await send(
            .subscribe(MQTTPacket.Subscribe(packetIdentifier: identifier, subscriptions: [.init(filter: filter, qos: qos)])),
            deadline: deadline)
        let suback = try await answer.value(until: deadline, "SUBACK for \(filter) from \(endpoint)")
        guard suback.results.count == 1 else {
            let violation = PhoneMQTTError.protocolViolation(
                endpoint: endpoint, "SUBACK with \(suback.results.count) return codes for one filter")
            end(violation)
            throw violation
        }
        switch suback.results[0] {
        case .granted(let granted): return granted
        case .failure: throw .subscriptionRefused(endpoint: endpoint, filter: filter)
        }
    }

    /// Publishes `payload` on `topic`. At QoS 0 it returns once the packet is handed to the network;
    /// at QoS 1 once the broker's `PUBACK` arrives. Never resent: a QoS 1 publish that times out may
    /// or may not have reached the broker.
    public func publish(
        _ payload: [UInt8], to topic: String, qos: MQTTPacket.QoS = .atLeastOnce, retain: Bool = false, deadline: ContinuousClock.Instant
    ) async throws(PhoneMQTTError) {
        guard MQTTTopic.isValidName(topic) else { throw .invalidRequest("publishing to the invalid topic '\(topic)'") }
        switch qos {
        case .exactlyOnce:
            throw .invalidRequest("publishing at QoS 2 (this client speaks QoS 0 and 1; NATS refuses QoS 2)")
        case .atMostOnce:
            try requireConnected("publish to \(topic)")
            try await send(
                .publish(MQTTPacket.Publish(topic: topic, payload: payload, qos: .atMostOnce, retain: retain)), deadline: deadline)
        case .atLeastOnce:
            try requireConnected("publish to \(topic)")
            let identifier = try nextIdentifier()
            let answer = Promise<Void>()
            pubacks[identifier] = answer
            defer { pubacks[identifier] = nil }
            try await send(
                .publish(
                    MQTTPacket.Publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain, packetIdentifier: identifier)),
                deadline: deadline)
            try await answer.value(until: deadline, "PUBACK for \(topic) from \(endpoint)")
        }
    }

    /// Sends `PINGREQ` and returns when the `PINGRESP` arrives.
    public func ping(deadline: ContinuousClock.Instant) async throws(PhoneMQTTError) {
        try requireConnected("ping")
        let answer = Promise<Void>()
        pings.append(answer)
        try await send(.pingreq, deadline: deadline)
        try await answer.value(until: deadline, "PINGRESP from \(endpoint)")
    }

    /// Sends `DISCONNECT` (waiting at most until `deadline` for it to be handed to the network) and
    /// closes the connection. Waits still running fail with ``PhoneMQTTError/connectionClosed(endpoint:reason:)``.
    public func disconnect(deadline: ContinuousClock.Instant = .now.advanced(by: .seconds(1))) async {
        if case .connected = phase {
            try? await send(.disconnect, deadline: deadline)
        }
        end(nil)
    }

    // MARK: Sending

    private func connectPacket() throws(PhoneMQTTError) -> MQTTPacket.Connect {
        let keepAlive = options.keepAlive.components
        guard keepAlive.seconds >= 0, keepAlive.seconds <= Int64(UInt16.max), keepAlive.attoseconds == 0 else {
            throw .invalidConfiguration("keep-alive \(options.keepAlive) is not whole seconds in 0...65535")
        }
        guard options.password == nil || options.username != nil else {
            throw .invalidConfiguration("a password without a user name (MQTT 3.1.1 sends a password only with a user name)")
        }
        return MQTTPacket.Connect(
            clientID: options.clientID, cleanSession: options.cleanSession, keepAlive: UInt16(keepAlive.seconds),
            username: options.username,
            password: options.password.map { Array($0.utf8) })
    }

    private func requireConnected(_ step: String) throws(PhoneMQTTError) {
        switch phase {
        case .connected: return
        case .idle, .connecting: throw .notConnected(step: step, cause: nil)
        case .closed(let reason): throw .notConnected(step: step, cause: reason)
        }
    }

    private func nextIdentifier() throws(PhoneMQTTError) -> UInt16 {
        guard let identifier = identifiers.next(avoiding: Set(subacks.keys).union(pubacks.keys)) else {
            throw .invalidRequest("65,535 packets already await an answer")
        }
        return identifier
    }

    /// Encodes `packet` and queues it on the stream (in call order), then waits until it is handed to the network.
    private func send(_ packet: MQTTPacket, deadline: ContinuousClock.Instant) async throws(PhoneMQTTError) {
        let bytes: [UInt8]
        do {
            bytes = try packet.encoded()
        } catch {
            throw .invalidRequest("\(packet.name) cannot be encoded: \(error)")
        }
        lastSent = .now
        let written = Promise<Void>()
        stream.write(bytes) { error in written.resolve(error.map { .failure($0) } ?? .success(())) }
        try await written.value(until: deadline, "sending \(packet.name) to \(endpoint)")
    }

    // MARK: Receiving

    private func startReading() {
        let inbound = stream.inbound
        reader = Task { [weak self] in
            for await event in inbound {
                guard let self else { return }
                await self.receive(event)
            }
        }
    }

    private func receive(_ event: MQTTByteStreamEvent) {
        switch event {
        case .closed(let reason):
            end(reason ?? .connectionClosed(endpoint: endpoint, reason: "closed by this client"))
        case .bytes(let bytes):
            decoder.append(bytes)
            while isOpen {
                let packet: MQTTPacket?
                do {
                    packet = try decoder.next()
                } catch {
                    end(.malformedPacket(endpoint: endpoint, error))
                    return
                }
                guard let packet else { return }
                handle(packet)
            }
        }
    }

    private func handle(_ packet: MQTTPacket) {
        switch packet {
        case .connack(let answer):
            guard case .connecting = phase, let connack else { return violation("a CONNACK after the connection was accepted") }
            if answer.returnCode == .accepted { phase = .connected }
            connack.resolve(.success(answer))
        case .publish(let message):
            guard isConnected else { return violation("a PUBLISH before the CONNACK") }
            switch message.qos {
            case .atMostOnce:
                sink.yield(message)
            case .atLeastOnce:
                sink.yield(message)
                if let identifier = message.packetIdentifier {
                    lastSent = .now
                    // Not waited for: the next packets are read meanwhile; a failed write ends the stream anyway.
                    if let bytes = try? MQTTPacket.puback(packetIdentifier: identifier).encoded() { stream.write(bytes) { _ in } }
                }
            case .exactlyOnce:
                violation("a QoS 2 PUBLISH to a client that subscribes at QoS 0 and 1 only")
            }
        case .puback(let identifier):
            // An identifier nobody waits for is a publish given up at its deadline: its late PUBACK is harmless.
            pubacks.removeValue(forKey: identifier)?.resolve(.success(()))
        case .suback(let answer):
            guard let waiting = subacks.removeValue(forKey: answer.packetIdentifier) else {
                // Like a late PUBACK, a SUBACK for a subscribe given up at its deadline.
                return
            }
            waiting.resolve(.success(answer))
        case .pingresp:
            for ping in pings { ping.resolve(.success(())) }
            pings.removeAll()
        case .connect, .subscribe, .pingreq, .disconnect:
            violation("a \(packet.name), which only a client sends")
        }
    }

    private func violation(_ text: String) {
        end(.protocolViolation(endpoint: endpoint, text))
    }

    // MARK: Keep-alive and the end

    /// Pings whenever nothing was sent for three quarters of `keepAlive` (MQTT wants no gap longer
    /// than `keepAlive`, so the ping goes out before it, however late the timer fires), and ends the
    /// connection when a `PINGRESP` does not come within `keepAlive`.
    private func startKeepAlive() {
        let keepAlive = options.keepAlive
        guard keepAlive > .zero else { return }
        let quiet = keepAlive * 3 / 4
        keepAliveTask = Task { [weak self] in
            var wake = ContinuousClock.now.advanced(by: quiet)
            while true {
                do {
                    try await Task.sleep(until: wake, clock: .continuous)
                } catch {
                    return
                }
                guard let self, let next = await self.keepAliveDue(quiet: quiet, keepAlive: keepAlive) else { return }
                wake = next
            }
        }
    }

    /// Pings if nothing went out for `quiet`; the time to look again, `nil` once the connection ended.
    private func keepAliveDue(quiet: Duration, keepAlive: Duration) async -> ContinuousClock.Instant? {
        guard isConnected else { return nil }
        let due = lastSent.advanced(by: quiet)
        guard ContinuousClock.now >= due else { return due }
        do {
            try await ping(deadline: .now.advanced(by: keepAlive))
        } catch {
            if case .timedOut = error {
                end(.connectionClosed(endpoint: endpoint, reason: "no PINGRESP within \(PhoneMQTTError.format(keepAlive))"))
            }
            return nil
        }
        return lastSent.advanced(by: quiet)
    }

    /// Ends the connection: closes the stream, fails every wait with `reason` (or, after
    /// ``disconnect()``, with "closed by this client"), and ends ``messages``.
    private func end(_ reason: PhoneMQTTError?) {
        if case .closed = phase { return }
        phase = .closed(reason)
        stream.close()
        let failure = reason ?? .connectionClosed(endpoint: endpoint, reason: "closed by this client")
        connack?.resolve(.failure(failure))
        connack = nil
        for waiting in subacks.values { waiting.resolve(.failure(failure)) }
        for waiting in pubacks.values { waiting.resolve(.failure(failure)) }
        for waiting in pings { waiting.resolve(.failure(failure)) }
        subacks.removeAll()
        pubacks.removeAll()
        pings.removeAll()
        keepAliveTask?.cancel()
        reader?.cancel()
        sink.finish()
    }
}
