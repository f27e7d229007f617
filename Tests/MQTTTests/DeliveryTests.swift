import MQTT
import MosquittoTesting
import Synchronization
import TestSupport
import Testing

@Suite("Retained messages, wildcards, unsubscribe, bad topics", .timeLimit(.minutes(1)))
struct DeliveryTests {
    @Test("a retained message reaches a subscriber that arrives later, flagged retained")
    func retained() async throws {
        try await withMosquittoBroker { broker in
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { publisher in
                try await publisher.publish(topic: "fleet/gw-1/status", string: #"{"state":"online"}"#, qos: .atLeastOnce, retain: true)
                try await publisher.publish(topic: "fleet/gw-2/status", string: #"{"state":"offline"}"#, qos: .exactlyOnce, retain: true)
            }
            try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: "fleet/#") { late, messages in
                let received = try await collect(2, from: messages).sorted { $0.topic < $1.topic }
                #expect(received.map(\.topic) == ["fleet/gw-1/status", "fleet/gw-2/status"])
                #expect(received.map(\.payloadString) == [#"{"state":"online"}"#, #"{"state":"offline"}"#])
                #expect(received.allSatisfy { $0.retain })
            }
        }
    }

    @Test("after unsubscribe, messages on that filter stop; other subscriptions continue")
    func unsubscribe() async throws {
        try await withBrokerAndClient { broker, client in
            let messages = client.messages
            try await client.subscribe("a/+")
            try await client.subscribe("b/#")
            try await client.unsubscribe("a/+")
            try await client.publish(topic: "a/1", payload: [1])
            try await client.publish(topic: "b/1/2", payload: [2])
            let received = try await collect(1, from: messages)
            #expect(received.map(\.topic) == ["b/1/2"])
        }
    }

    @Test("invalid topics and filters are refused before reaching the broker, naming them")
    func invalidTopics() async throws {
        try await withBrokerAndClient { broker, client in
            for topic in ["a/+/b", "a/#", ""] {
                await #expect(throws: MQTTError.self) { try await client.publish(topic: topic, payload: [1]) }
                #expect {
                    try client.enqueue(topic: topic, payload: [1], qos: .atMostOnce)
                } throws: { error in
                    guard case .invalidTopic(let named, _) = error as? MQTTError else { return false }
                    return named == topic
                }
            }
            for filter in ["a/#/b", "a+/b", ""] {
                await #expect {
                    try await client.subscribe(filter)
                } throws: { error in
                    guard case .invalidFilter(let named, _) = error as? MQTTError else { return false }
                    return named == filter
                }
            }
            // The client is still usable afterwards.
            try await client.publish(topic: "ok", payload: [1])
        }
    }

    @Test("each messages stream sees every message; the first one also gets what arrived before it")
    func severalConsumers() async throws {
        try await withBrokerAndClient { broker, client in
            try await parkEarlyMessage(on: client)
            let first = client.messages
            let second = client.messages
            try await client.publish(topic: "x/late", payload: [1])
            #expect(try await collect(2, from: first).map(\.topic) == ["x/early", "x/late"])
            #expect(try await collect(1, from: second).map(\.topic) == ["x/late"])
        }
    }

    @Test("a message handler gets every message in order, those that arrived before it first, and none once cancelled")
    func handler() async throws {
        final class Received: Sendable {
            let topics = Mutex<[String]>([])
        }
        try await withBrokerAndClient { broker, client in
            try await parkEarlyMessage(on: client)
            let received = Received()
            let registration = client.handleMessages { message in
                received.topics.withLock { $0.append(message.topic) }
            }
            let expected = ["x/early"] + (0..<300).map { "x/\($0)" }
            for topic in expected.dropFirst() { try client.enqueue(topic: topic, payload: [1], qos: .atLeastOnce) }
            try await withTimeout(.seconds(10), "300 messages to reach the handler") {
                while received.topics.withLock({ $0.count }) < expected.count { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(received.topics.withLock { $0 } == expected)
            registration.cancel()
            let stream = client.messages
            try await client.publish(topic: "x/after", payload: [2], qos: .atLeastOnce)
            #expect(try await collect(1, from: stream).map(\.topic) == ["x/after"])
            #expect(received.topics.withLock { $0.count } == expected.count, "cancelled: the handler got nothing more")
        }
    }

    @Test("a handler may take payloads over from libmosquitto: the bytes outlive the call, a stream still gets its own copy")
    func handlerTakesPayloads() async throws {
        final class Received: Sendable {
            let taken = Mutex<[(String, MQTTPayload)]>([])
            let seenInPlace = Mutex<[[UInt8]]>([])
        }
        try await withBrokerAndClient { broker, client in
            try await parkEarlyMessage(on: client)
            let received = Received()
            let registration = client.handleReceived { message in
                received.seenInPlace.withLock { $0.append(Array(message.payload)) }
                let payload = message.takePayload()
                #expect(message.payload.isEmpty, "taken: nothing left in place")
                received.taken.withLock { $0.append((message.topic, payload)) }
            }
            defer { registration.cancel() }
            let stream = client.messages
            let payloads: [[UInt8]] = [(0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }, [9, 8, 7], []]
            for (i, payload) in payloads.enumerated() {
                try await client.publish(topic: "x/\(i)", payload: payload, qos: i == 1 ? .atMostOnce : .atLeastOnce)
            }
            let streamed = try await collect(payloads.count, from: stream)
            #expect(streamed.map(\.payload) == payloads, "the stream's copies were made before the handler took the payloads")
            try await withTimeout(.seconds(10), "the handler to see every message") {
                while received.taken.withLock({ $0.count }) < payloads.count + 1 { try await Task.sleep(for: .milliseconds(5)) }
            }
            let taken = received.taken.withLock { $0 }
            #expect(taken.map(\.0) == ["x/early", "x/0", "x/1", "x/2"])
            // Read after the handlers returned and libmosquitto moved on: the taken bytes are intact.
            #expect(taken.map { entry in entry.1.withUnsafeBytes { Array($0) } } == [[0]] + payloads)
            #expect(received.seenInPlace.withLock { $0 } == [[0]] + payloads)
        }
    }

    /// Subscribes `client` to `x/#` and has `x/early` delivered to it before anyone listens, so the
    /// client parks it for its first consumer.
    private func parkEarlyMessage(on client: MQTTClient) async throws {
        try await client.subscribe("x/#")
        try await client.publish(topic: "x/early", payload: [0], qos: .atLeastOnce)
        // A QoS 2 publish acknowledged after it: the broker has sent x/early back by then.
        try await client.publish(topic: "other", payload: [0], qos: .exactlyOnce)
        try await withTimeout(.seconds(5), "the early message to be parked") {
            while client.outstandingMessageCount > 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
    }
}
