public import RegionSync

/// The ``RegionSyncTransport`` an app uses as it is: a fresh MQTT 3.1.1 connection per wake
/// (``PhoneMQTTClient``, pure Swift over `Network.framework` on iOS and SwiftNIO on Linux), QoS 1
/// both ways, TLS trusting the venue's CA, every wait bounded.
///
/// ```swift
/// let transport = PhoneMQTTTransport(configuration: PhoneMQTTConfiguration(
///     url: "mqtts://broker.example.com:8883", clientID: id, username: id, password: password))
/// let session = RegionSyncSession(client: client, topics: topics, transport: transport, applier: applier, events: log)
/// let outcome = await session.wake(ranged: ranged)
/// ```
///
/// Each ``connect()`` opens a new connection (sockets do not survive suspension) and ends the
/// previous one, so one transport serves every wake. The waits are bounded twice: by the
/// configuration (`connectTimeout`, `responseTimeout`) and by the session, which cancels a step at
/// its deadline; either way the step ends at once with ``PhoneMQTTError/timedOut(step:after:)`` or
/// ``PhoneMQTTError/cancelled(step:)``, reported as `RegionSyncError.transport` with the cause.
///
/// With `reportCopy` (``RegionSyncSession/Options/reportCopy``, for a NATS cluster) the QoS 0
/// copies of the reports go out on a second connection of the wake, client id `{clientID}-copy`,
/// same credentials: a NATS node reads one connection's packets in order, so a QoS 1 report stalled
/// on a dead JetStream leader held up every copy sent after it on the same connection
/// (`scripts/partition-check --kill-node msgs`: a phone's next eight reports arrived together, 7.4 s late).
public actor PhoneMQTTTransport: RegionSyncTransport {
    /// Where and how to connect.
    public nonisolated let configuration: PhoneMQTTConfiguration
    /// Whether ``publishCopy(_:to:)`` uses a connection of its own.
    public nonisolated let reportCopy: Bool

    /// This wake's connection.
    private var client: PhoneMQTTClient?
    /// This wake's connection for the copies, connecting meanwhile.
    private var copies: Task<PhoneMQTTClient?, Never>?
    /// The streams ``subscribe(_:)`` returned this wake, by filter.
    private var subscribers: [(filter: String, sink: AsyncStream<[UInt8]>.Continuation)] = []
    /// Moves this wake's deliveries into ``subscribers``.
    private var router: Task<Void, Never>?

    /// A transport for `configuration`; with `reportCopy`, the report copies get a connection of their own.
    public init(configuration: PhoneMQTTConfiguration, reportCopy: Bool = false) {
        self.configuration = configuration
        self.reportCopy = reportCopy
    }

    /// The client of the current wake, for tests and diagnostics.
    public var connection: PhoneMQTTClient? { client }

    /// Opens this wake's connection and returns once the broker accepted it; the copies' connection
    /// (with `reportCopy`) connects meanwhile.
    public func connect() async throws(RegionSyncError) {
        await disconnect()
        let deadline = ContinuousClock.now.advanced(by: configuration.connectTimeout)
        let client: PhoneMQTTClient
        do throws(PhoneMQTTError) {
            client = PhoneMQTTClient(stream: try configuration.makeStream(), options: configuration.clientOptions())
        } catch {
            throw .transport(error.description)
        }
        self.client = client
        // Every delivery since the CONNACK goes through `messages`, in order: the retained message
        // too, also when it comes before the SUBACK.
        let messages = client.messages
        router = Task { [weak self] in
            for await message in messages { await self?.route(message, from: client) }
            await self?.connectionEnded(client)
        }
        if reportCopy {
            let configuration = self.configuration
            copies = Task {
                guard let stream = try? configuration.makeStream() else { return nil }
                let copies = PhoneMQTTClient(
                    stream: stream, options: configuration.clientOptions(clientID: configuration.clientID + "-copy"))
                do {
                    try await copies.connect(deadline: deadline)
                    return copies
                } catch {
                    return nil
                }
            }
        }
        do throws(PhoneMQTTError) {
            try await client.connect(deadline: deadline)
        } catch {
            throw .transport(error.description)
        }
    }

    /// Subscribes at QoS 1 and returns the payloads on `topic` (a filter: `+` and `#` match), the
    /// retained message first (also when the broker sends it before the `SUBACK`); the stream ends
    /// with the connection or at ``disconnect()``.
    public func subscribe(_ topic: String) async throws(RegionSyncError) -> AsyncStream<[UInt8]> {
        guard let client else { throw .transport(PhoneMQTTError.notConnected(step: "subscribe to \(topic)", cause: nil).description) }
        // In place before the SUBSCRIBE goes out, so the retained message finds it.
        let (payloads, sink) = AsyncStream.makeStream(of: [UInt8].self)
        subscribers.append((topic, sink))
        do throws(PhoneMQTTError) {
            try await client.subscribe(topic, qos: .atLeastOnce, deadline: .now.advanced(by: configuration.responseTimeout))
        } catch {
            throw .transport(error.description)
        }
        return payloads
    }

    private func route(_ message: MQTTPacket.Publish, from origin: PhoneMQTTClient) {
        guard origin === client else { return }
        for subscriber in subscribers where MQTTTopic.matches(message.topic, filter: subscriber.filter) {
            subscriber.sink.yield(message.payload)
        }
    }

    private func connectionEnded(_ origin: PhoneMQTTClient) {
        guard origin === client else { return }
        for subscriber in subscribers { subscriber.sink.finish() }
        subscribers.removeAll()
    }

    /// Publishes at QoS 1 and returns once the broker's `PUBACK` arrived.
    public func publish(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        guard let client else { throw .transport(PhoneMQTTError.notConnected(step: "publish to \(topic)", cause: nil).description) }
        do throws(PhoneMQTTError) {
            try await client.publish(payload, to: topic, qos: .atLeastOnce, deadline: .now.advanced(by: configuration.responseTimeout))
        } catch {
            throw .transport(error.description)
        }
    }

    /// Publishes at QoS 0 on the copies' connection (waiting for it to connect) or, without
    /// `reportCopy`, on the wake's connection; returns once the packet is handed to the network.
    public func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        let connection: PhoneMQTTClient?
        if let copies {
            connection = await copies.value
            guard connection != nil else {
                throw .transport("the report copies' connection to \(configuration.url) failed; the QoS 1 report goes on alone")
            }
        } else {
            connection = client
        }
        guard let connection else { throw .transport(PhoneMQTTError.notConnected(step: "publish to \(topic)", cause: nil).description) }
        do throws(PhoneMQTTError) {
            try await connection.publish(payload, to: topic, qos: .atMostOnce, deadline: .now.advanced(by: configuration.responseTimeout))
        } catch {
            throw .transport(error.description)
        }
    }

    /// Sends `DISCONNECT` on this wake's connections (at most a second each) and closes them.
    public func disconnect() async {
        let client = self.client
        let copies = self.copies
        self.client = nil
        self.copies = nil
        router?.cancel()
        router = nil
        for subscriber in subscribers { subscriber.sink.finish() }
        subscribers.removeAll()
        await client?.disconnect()
        await copies?.value?.disconnect()
    }
}
