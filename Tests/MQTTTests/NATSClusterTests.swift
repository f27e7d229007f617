import Foundation
import MosquittoTesting
import TestSupport
import Testing

@testable import MQTT

/// This package's client over libmosquitto against a three-node NATS cluster (`scripts/nats-cluster`):
/// what docs/mqtt.md promises about it. Each test starts its own cluster and stops it afterwards.
@Suite(
    "A three-node NATS cluster", .serialized, .timeLimit(.minutes(2)),
    .requires(NATSCluster.isAvailable, NATSCluster.missingMessage))
struct NATSClusterTests {
    private func configuration(_ url: BrokerURL, _ name: String) -> MQTTConfiguration {
        MQTTConfiguration(url: url, clientID: MQTTConfiguration.randomClientID(prefix: name))
            .reconnecting(after: .milliseconds(100), atMost: .seconds(1))
    }

    @Test("NATS refuses MQTT 5; the client falls back to 3.1.1 and says so, or gives up when told to speak 5 only")
    func protocolFallback() async throws {
        try await withNATSCluster { cluster in
            try await withConnectedClient(configuration(cluster.urls[0], "auto")) { client in
                #expect(client.negotiatedProtocolVersion == .v311)
                #expect(client.connectedBroker == cluster.urls[0])
            }
            var strict = configuration(cluster.urls[0], "strict")
            strict.fallsBackToV311 = false
            let client = try MQTTClient(configuration: strict)
            try client.connect()
            await #expect(throws: MQTTError.self) {
                try await withTimeout(.seconds(10), "the MQTT 5 refusal") { try await client.connected() }
            }
            if case .disconnected(let error) = client.connectionState {
                #expect(error == .connectionRefused(broker: cluster.urls[0].description, code: 132, reason: error.reasonText))
                #expect(error.isConfigurationProblem)
            } else {
                Issue.record("expected a refusal, got \(client.connectionState)")
            }
            #expect(client.negotiatedProtocolVersion == nil)
            await client.disconnect()
        }
    }

    @Test("QoS 0 and 1 across nodes, retained messages from another node, a persistent session across a reconnect to another node")
    func acrossNodes() async throws {
        try await withNATSCluster { cluster in
            // QoS 0 and QoS 1: publisher on node 1, subscriber on node 2.
            try await withSubscribedClient(configuration(cluster.urls[1], "sub"), to: "cross/+", qos: .atLeastOnce) {
                subscriber, messages in
                try await withConnectedClient(configuration(cluster.urls[0], "pub")) { publisher in
                    for index in 0..<20 {
                        try await publisher.publish(topic: "cross/one", payload: Array("\(index)".utf8), qos: .atLeastOnce)
                        try await publisher.publish(topic: "cross/zero", payload: Array("\(index)".utf8), qos: .atMostOnce)
                    }
                    await publisher.drain()
                }
                // QoS 1 may be redelivered (at least once): compare sets.
                let received = try await distinct(40, from: messages, "the messages published on another node") {
                    "\($0.topic) \($0.payloadString)"
                }
                #expect(received == Set((0..<20).flatMap { ["cross/one \($0)", "cross/zero \($0)"] }))
            }

            // Retained: published on node 1, seen by a new subscriber on node 3 (up to ~3 s late).
            try await withConnectedClient(configuration(cluster.urls[0], "retainer")) { publisher in
                try await publisher.publish(topic: "retained/status", payload: Array("online".utf8), qos: .atLeastOnce, retain: true)
            }
            let seen = try await withTimeout(.seconds(10), "the retained message on another node") { () async throws -> String in
                while true {
                    let payload = try await withSubscribedClient(
                        self.configuration(cluster.urls[2], "reader"), to: "retained/status", qos: .atLeastOnce
                    ) { reader, messages in
                        return try? await withTimeout(.milliseconds(500), "a retained message") {
                            try await collect(1, from: messages).first?.payloadString
                        }
                    }
                    if let payload { return payload }
                }
            }
            #expect(seen == "online")

            // A persistent session (clean session false): subscribed on node 1, gone, messages
            // published meanwhile on node 2, resumed with the same id on node 3.
            var persistent = configuration(cluster.urls[0], "session")
            persistent.cleanSession = false
            try await withConnectedClient(persistent) { client in
                try await client.subscribe("queued/#", qos: .atLeastOnce)
            }
            try await withConnectedClient(configuration(cluster.urls[1], "queuer")) { publisher in
                for index in 0..<10 {
                    try await publisher.publish(topic: "queued/\(index)", payload: [UInt8(index)], qos: .atLeastOnce)
                }
            }
            persistent.url = cluster.urls[2]
            let queued = try await withConnectedClient(persistent) { client in
                // No subscribe here: what arrives comes from the session the cluster kept.
                try await distinct(10, from: client.messages, "the messages queued in the session") { $0.topic }
            }
            #expect(queued == Set((0..<10).map { "queued/\($0)" }))
        }
    }

    @Test("kill -9 of the node a client is on: it fails over to another URL of its list and goes on publishing")
    func failoverAfterKill() async throws {
        try await withNATSCluster { cluster in
            try await withSubscribedClient(configuration(cluster.urls[2], "watcher"), to: "failover/+", qos: .atLeastOnce) {
                watcher, messages in
                var listed = configuration(cluster.urls[0], "listed")
                listed.failoverURLs = [cluster.urls[1], cluster.urls[2]]
                try await withConnectedClient(listed) { client in
                    #expect(client.connectedBroker == cluster.urls[0])
                    try await client.publish(topic: "failover/before", payload: [1], qos: .atLeastOnce)
                    try await cluster.kill(node: 1)
                    // To node 2, or on to node 3: right after a node dies the cluster may refuse
                    // connections on the others for a while (see docs/mqtt.md), and the list goes on.
                    try await withTimeout(.seconds(60), "the client to fail over to node 2 or 3") {
                        while client.connectedBroker == cluster.urls[0] || client.connectedBroker == nil
                            || !client.connectionState.isConnected
                        {
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    try await client.publish(topic: "failover/after", payload: [2], qos: .atLeastOnce)
                }
                let topics = try await distinct(2, from: messages, "both messages at the watcher on node 3") { $0.topic }
                #expect(topics == ["failover/before", "failover/after"])
            }
        }
    }
}

/// The first `count` distinct keys of `messages` (QoS 1 may deliver one twice), within 10 s.
private func distinct(
    _ count: Int, from messages: AsyncStream<MQTTMessage>, _ what: String, key: @escaping @Sendable (MQTTMessage) -> String
) async throws -> Set<String> {
    try await withTimeout(.seconds(10), what) {
        var keys = Set<String>()
        for await message in messages {
            keys.insert(key(message))
            if keys.count >= count { break }
        }
        return keys
    }
}

extension MQTTError {
    /// The reason text of a refusal, for comparing the rest of it.
    fileprivate var reasonText: String {
        if case .connectionRefused(_, _, let reason) = self { return reason }
        return ""
    }
}
