public import MQTT
public import MosquittoTesting

/// Runs `body` with a fresh ``MosquittoBroker`` and stops the broker afterwards, also when `body` throws.
public func withMosquittoBroker<Result>(
    _ configuration: MosquittoBroker.Configuration = .init(),
    _ body: (MosquittoBroker) async throws -> Result
) async throws -> Result {
    let broker = try await MosquittoBroker.start(configuration)
    do {
        let result = try await body(broker)
        await broker.stop()
        return result
    } catch {
        broker.kill()
        throw error
    }
}

/// Runs `body` with a connected ``MQTTClient`` and disconnects it afterwards, also when `body` throws.
@discardableResult
public func withConnectedClient<Result>(
    _ configuration: MQTTConfiguration,
    timeout: Duration = .seconds(10),
    _ body: (MQTTClient) async throws -> Result
) async throws -> Result {
    try await withResource(try MQTTClient(configuration: configuration), stop: { await $0.disconnect() }) { client in
        try client.connect()
        try await withTimeout(timeout, "connecting to \(configuration.url)") { try await client.connected() }
        return try await body(client)
    }
}

/// Runs `body` with a connected ``MQTTClient`` subscribed to `filter` and the stream of what it
/// receives (taken before the subscription, so nothing the subscription brings is missed);
/// disconnects the client afterwards, also when `body` throws.
@discardableResult
public func withSubscribedClient<Result>(
    _ configuration: MQTTConfiguration, to filter: String, qos: QoS = .atLeastOnce,
    _ body: (MQTTClient, AsyncStream<MQTTMessage>) async throws -> Result
) async throws -> Result {
    try await withConnectedClient(configuration) { client in
        let messages = client.messages
        try await client.subscribe(filter, qos: qos)
        return try await body(client, messages)
    }
}

/// Runs `body` with a fresh ``MosquittoBroker`` and an ``MQTTClient`` connected to it (anonymous,
/// default settings); disconnects the client and stops the broker afterwards, also when `body` throws.
@discardableResult
public func withBrokerAndClient<Result>(_ body: (MosquittoBroker, MQTTClient) async throws -> Result) async throws -> Result {
    try await withMosquittoBroker { broker in
        try await withConnectedClient(MQTTConfiguration(url: broker.url)) { client in try await body(broker, client) }
    }
}

/// Runs `body` with a fresh ``NATSCluster`` (`scripts/nats-cluster`) and stops it afterwards, also when `body` throws.
public func withNATSCluster<Result>(_ body: (NATSCluster) async throws -> Result) async throws -> Result {
    try await withResource(
        try await NATSCluster.start(script: SharedData.packageRoot.appendingPathComponent("scripts/nats-cluster")),
        stop: { await $0.stop() },
        body)
}

/// Runs `body` with a fresh ``EtcdCluster`` (`scripts/etcd-cluster`) and stops it afterwards, also when `body` throws.
public func withEtcdCluster<Result>(_ body: (EtcdCluster) async throws -> Result) async throws -> Result {
    try await withResource(
        try await EtcdCluster.start(script: SharedData.packageRoot.appendingPathComponent("scripts/etcd-cluster")),
        stop: { await $0.stop() },
        body)
}

/// Runs `body` with `resource`, then `stop`s it, also when `body` throws.
public func withResource<Resource, Result>(
    _ resource: Resource, stop: (Resource) async -> Void, _ body: (Resource) async throws -> Result
) async throws -> Result {
    do {
        let result = try await body(resource)
        await stop(resource)
        return result
    } catch {
        await stop(resource)
        throw error
    }
}
