public import MQTT
public import RegionSync

/// A ``RegionSyncTransport`` over this package's `MQTTClient` (libmosquitto): one client per wake,
/// connected fresh, QoS 1 both ways; with report copies (``RegionSyncSession/Options/reportCopy``),
/// a second client of its own for the QoS 0 copies.
///
/// Why a connection of its own for the copies: a NATS node reads a connection's packets one after
/// another, so a QoS 1 report stalled on a dead JetStream leader held up every QoS 0 copy sent after
/// it on the same connection (`scripts/partition-check --kill-node msgs`: a phone's next eight
/// reports arrived together, 7.4 s late; docs/mqtt.md).
public struct MQTTRegionSyncTransport: RegionSyncTransport {
    /// The client; create a new transport (and client) for every wake.
    public let client: MQTTClient
    /// The client the report copies go out on; `nil`: on ``client``.
    public let copies: MQTTClient?

    public init(client: MQTTClient, copies: MQTTClient? = nil) {
        self.client = client
        self.copies = copies
    }

    /// A transport with a new client for `configuration`; with `reportCopy`, also one for the copies,
    /// its client id `configuration.clientID` followed by `-copy` (same broker and credentials).
    public init(configuration: MQTTConfiguration, reportCopy: Bool = false) throws(RegionSyncError) {
        do {
            var copies: MQTTClient?
            if reportCopy {
                var copyConfiguration = configuration
                copyConfiguration.clientID += "-copy"
                copies = try MQTTClient(configuration: copyConfiguration)
            }
            self.init(client: try MQTTClient(configuration: configuration), copies: copies)
        } catch {
            throw .transport(error.description)
        }
    }

    /// Connects ``client`` and returns once it is connected; the copies' client connects meanwhile
    /// (``publishCopy(_:to:)`` waits for it).
    public func connect() async throws(RegionSyncError) {
        do {
            try copies?.connect()
            try client.connect()
            try await client.connected()
        } catch {
            throw .transport(error.description)
        }
    }

    public func subscribe(_ topic: String) async throws(RegionSyncError) -> AsyncStream<[UInt8]> {
        let messages = client.messages  // taken before subscribing, so the retained message is in it
        do {
            try await client.subscribe(topic, qos: .atLeastOnce)
        } catch {
            throw .transport(error.description)
        }
        return AsyncStream { continuation in
            let pump = Task {
                for await message in messages where message.topic == topic { continuation.yield(message.payload) }
                continuation.finish()
            }
            continuation.onTermination = { _ in pump.cancel() }
        }
    }

    public func publish(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        do {
            try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: false)
        } catch {
            throw .transport(error.description)
        }
    }

    /// Hands the copy to ``copies`` (waiting for its connection first) or, without it, to ``client``.
    public func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        do {
            let connection = copies ?? client
            try await connection.connected()
            try connection.enqueue(topic: topic, payload: payload, qos: .atMostOnce, retain: false)
        } catch {
            throw .transport(error.description)
        }
    }

    public func disconnect() async {
        await client.disconnect()
        await copies?.disconnect()
    }
}
