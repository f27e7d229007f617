import Foundation
import MosquittoTesting
import TestSupport
import Testing

@testable import MQTT

@Suite("Last will, reconnection, the bounded queue and the network thread", .timeLimit(.minutes(1)))
struct ConnectionTests {
    @Test("the broker publishes the last will when the connection dies without DISCONNECT, not after a clean one")
    func lastWill() async throws {
        try await withBrokerAndClient { broker, watcher in
            let messages = watcher.messages
            try await watcher.subscribe("gw/+/status")

            var clean = MQTTConfiguration(url: broker.url)
            clean.will = LastWill(topic: "gw/clean/status", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
            try await withConnectedClient(clean) { _ in }  // clean DISCONNECT: no will

            var abrupt = MQTTConfiguration(url: broker.url).reconnecting(after: .seconds(5), atMost: .seconds(5))
            abrupt.will = LastWill(topic: "gw/abrupt/status", payload: Array("offline".utf8), qos: .atLeastOnce, retain: true)
            try await withConnectedClient(abrupt) { client in
                client.core.severConnection()
                let will = try await collect(1, from: messages)
                #expect(will.map(\.topic) == ["gw/abrupt/status"])
                #expect(will.map(\.payloadString) == ["offline"])
            }
        }
    }

    @Test("after the broker restarts, the client reconnects, its subscriptions return and queued QoS 1 messages are delivered")
    func reconnectAfterBrokerRestart() async throws {
        try await withMosquittoBroker { broker in
            let configuration = MQTTConfiguration(url: broker.url).reconnecting(after: .milliseconds(50), atMost: .milliseconds(400))
            try await withConnectedClient(configuration) { subscriber in
                let messages = subscriber.messages
                let states = subscriber.connectionStates
                try await subscriber.subscribe("sightings/#", qos: .atLeastOnce)
                var publisherConfiguration = configuration
                publisherConfiguration.clientID = MQTTConfiguration.randomClientID()  // one id per connection
                try await withConnectedClient(publisherConfiguration) { publisher in
                    broker.kill()
                    try await withTimeout(.seconds(10), "both clients to notice the outage") {
                        while publisher.connectionState.isConnected || subscriber.connectionState.isConnected {
                            try await Task.sleep(for: .milliseconds(10))
                        }
                    }
                    guard case .disconnected(let reason) = subscriber.connectionState else {
                        Issue.record("expected disconnected, got \(subscriber.connectionState)")
                        return
                    }
                    #expect(reason.description.contains(broker.url.endpoint))
                    // Published during the outage: libmosquitto keeps QoS 1 messages until it reconnects.
                    try publisher.enqueue(topic: "sightings/outage", payload: [42], qos: .atLeastOnce)
                    #expect(publisher.outstandingMessageCount == 1)
                    try await broker.restart()
                    try await withTimeout(.seconds(10), "the queued message to be acknowledged") { await publisher.drain() }

                    // The subscriber subscribed once, before the outage; it must get messages again.
                    let probing = Task {
                        while !Task.isCancelled {
                            try? await publisher.publish(topic: "sightings/probe", payload: [1], qos: .atLeastOnce)
                            try await Task.sleep(for: .milliseconds(50))
                        }
                    }
                    defer { probing.cancel() }
                    let received = try await collect(1, from: messages.filter { $0.topic == "sightings/probe" })
                    #expect(received.count == 1)
                }
                let history = try await withTimeout(.seconds(10), "the state history") {
                    var seen: [MQTTConnectionState] = []
                    for await state in states {
                        seen.append(state)
                        if seen.count > 1 && state == .connected { break }
                    }
                    return seen
                }
                #expect(history.first == .connected)
                #expect(history.contains { if case .disconnected = $0 { true } else { false } })
                #expect(history.contains(.connecting))
                #expect(history.last == .connected)
            }
        }
    }

    @Test("the outgoing queue is bounded: past maxQueued, publishing fails with queueFull naming the topic")
    func boundedQueue() async throws {
        try await withMosquittoBroker { broker in
            await broker.stop()  // its port stays reserved (LoopbackPort): nothing else can answer there
            // No second attempt while the expectations below run: see the wait that follows.
            var configuration = MQTTConfiguration(url: broker.url).reconnecting(after: .seconds(3), atMost: .seconds(3))
            configuration.maxQueued = 3
            let client = try MQTTClient(configuration: configuration)
            try client.connect()
            // A connection attempt is non-blocking: the socket exists (and libmosquitto hands a QoS 0
            // message to it) until the network thread sees the refusal. Publishing at once raced that
            // thread, and a loaded machine lost the race now and then (no notConnected error).
            try await withTimeout(.seconds(10), "the refused first attempt") {
                while true {
                    if case .disconnected = client.connectionState { return }
                    try await Task.sleep(for: .milliseconds(5))
                }
            }
            #expect(throws: MQTTError.notConnected(topic: "q0")) {
                try client.enqueue(topic: "q0", payload: [3], qos: .atMostOnce)
            }
            for index in 0..<3 {
                try client.enqueue(topic: "q/\(index)", payload: [UInt8(index)], qos: .atLeastOnce)
            }
            #expect(throws: MQTTError.queueFull(topic: "q/3", limit: 3)) {
                try client.enqueue(topic: "q/3", payload: [3], qos: .atLeastOnce)
            }
            try await broker.restart()
            try await withTimeout(.seconds(10), "the queue to drain") { await client.drain() }
            #expect(client.outstandingMessageCount == 0)
            try client.enqueue(topic: "q/4", payload: [4], qos: .atLeastOnce)
            await client.disconnect()
            #expect(client.connectionState == .closed)
            #expect(throws: MQTTError.closed) { try client.enqueue(topic: "q/5", payload: [5]) }
        }
    }

    @Test("an awaiting QoS 1 publish made during an outage completes once the broker is back")
    func awaitAcrossOutage() async throws {
        try await withMosquittoBroker { broker in
            let configuration = MQTTConfiguration(url: broker.url).reconnecting(after: .milliseconds(50), atMost: .milliseconds(200))
            try await withConnectedClient(configuration) { client in
                broker.kill()
                try await withTimeout(.seconds(10), "the outage to be noticed") {
                    while client.connectionState.isConnected { try await Task.sleep(for: .milliseconds(10)) }
                }
                let acknowledged = Task { try await client.publish(topic: "late", payload: [1], qos: .atLeastOnce) }
                try await Task.sleep(for: .milliseconds(100))
                try await broker.restart()
                try await withTimeout(.seconds(10), "the PUBACK") { try await acknowledged.value }
            }
        }
    }

    @Test("a batch network thread runs as SCHED_BATCH in the kernel, a standard one as SCHED_OTHER")
    func networkThreadScheduling() async throws {
        try await withMosquittoBroker { broker in
            for (scheduling, policy) in [(NetworkThreadScheduling.standard, 0), (.batch, 3)] {
                var configuration = MQTTConfiguration(url: broker.url)
                configuration.networkThreadScheduling = scheduling
                try await withConnectedClient(configuration) { client in
                    let thread = client.core.networkThreadID.load(ordering: .acquiring)
                    #expect(thread > 0)
                    let applied = try Self.schedulingPolicy(ofThread: thread)
                    #expect(applied == policy, "\(scheduling)")
                }
            }
        }
    }

    /// Field 41 of `/proc/self/task/<tid>/stat` (`man 5 proc`): the thread's policy as the kernel holds it.
    private static func schedulingPolicy(ofThread thread: Int32) throws -> Int? {
        let stat = try String(contentsOfFile: "/proc/self/task/\(thread)/stat", encoding: .utf8)
        // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 38 ? Int(fields[38]) : nil
    }
}

@Suite("A list of brokers", .timeLimit(.minutes(1)))
struct BrokerListTests {
    @Test("a broker that refuses the connection hands over to the next URL of the list; MQTT 5 is kept where it is spoken")
    func failsOverToTheNextURL() async throws {
        try await withMosquittoBroker { broker in
            // A reserved port nobody listens on: connections to it are refused.
            let deadPort = try LoopbackPort.hold()
            defer { LoopbackPort.release(deadPort) }
            var configuration = try MQTTConfiguration(brokers: "mqtt://127.0.0.1:\(deadPort),\(broker.url.unredactedString)")
                .reconnecting(after: .milliseconds(50), atMost: .milliseconds(200))
            #expect(configuration.brokers.count == 2)
            configuration.clientID = MQTTConfiguration.randomClientID(prefix: "listed")
            try await withConnectedClient(configuration) { client in
                #expect(client.connectedBroker == broker.url)
                #expect(client.negotiatedProtocolVersion == .v5)
            }
        }
    }

    @Test("--broker lists and --mqtt-version values are parsed, and bad ones named")
    func commandLine() throws {
        #expect(try MQTTConfiguration.brokers(parsing: "mqtt://a:1,mqtt://b:2").map(\.endpoint) == ["a:1", "b:2"])
        #expect(throws: MQTTError.self) { try MQTTConfiguration.brokers(parsing: "mqtt://a:1,,mqtt://b") }
        #expect(throws: MQTTError.self) { try MQTTConfiguration.brokers(parsing: "mqtt://a:1,http://b") }
        var configuration = MQTTConfiguration(url: BrokerURL(host: "a"))
        try configuration.setVersion(commandLine: "3.1.1")
        #expect(configuration.protocolVersion == .v311 && !configuration.fallsBackToV311)
        try configuration.setVersion(commandLine: "5")
        #expect(configuration.protocolVersion == .v5 && !configuration.fallsBackToV311)
        try configuration.setVersion(commandLine: "auto")
        #expect(configuration.protocolVersion == .v5 && configuration.fallsBackToV311)
        #expect(throws: MQTTError.self) { try configuration.setVersion(commandLine: "4") }
    }
}
