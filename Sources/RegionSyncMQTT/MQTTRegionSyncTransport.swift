public import MQTT
public import RegionSync

/// A ``RegionSyncTransport`` over this package's `MQTTClient` (libmosquitto): one client per wake,
/// connected fresh, QoS 1 both ways.
public struct MQTTRegionSyncTransport: RegionSyncTransport {
    /// The client; create a new transport (and client) for every wake.
    public let client: MQTTClient

    public init(client: MQTTClient) {
        self.client = client
    }

    /// A transport with a new client for `configuration`.
    public init(configuration: MQTTConfiguration) throws(RegionSyncError) {
        do {
            self.init(client: try MQTTClient(configuration: configuration))
        } catch {
            throw .transport(error.description)
        }
    }

    public func connect() async throws(RegionSyncError) {
        do {
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

    public func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        do {
            try client.enqueue(topic: topic, payload: payload, qos: .atMostOnce, retain: false)
        } catch {
            throw .transport(error.description)
        }
    }

    public func disconnect() async {
        await client.disconnect()
    }
}
