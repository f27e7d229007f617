import Foundation
import MQTT
import MosquittoTesting
import Synchronization
import TestSupport
import Testing

/// Every message a subscriber receives, kept in order with when it arrived, for tests that wait
/// for one that matches.
final class MessageLog: Sendable {
    struct Entry: Sendable {
        var at: ContinuousClock.Instant
        var message: MQTTMessage
    }
    private final class Storage: Sendable {
        let entries = Mutex<[Entry]>([])
    }
    private let storage = Storage()
    private let task: Task<Void, Never>

    init(_ stream: AsyncStream<MQTTMessage>) {
        let storage = self.storage
        task = Task {
            for await message in stream { storage.entries.withLock { $0.append(Entry(at: .now, message: message)) } }
        }
    }

    func stop() { task.cancel() }

    /// Messages received so far.
    var count: Int { storage.entries.withLock { $0.count } }

    /// Everything received so far, oldest first.
    var entries: [Entry] { storage.entries.withLock { $0 } }

    /// Waits (up to `limit`) until `condition` holds for what has arrived.
    func wait(_ what: String, within limit: Duration, until condition: @escaping @Sendable ([Entry]) -> Bool) async throws {
        try await withTimeout(limit, what) { [storage] in
            while !storage.entries.withLock({ condition($0) }) { try await Task.sleep(for: .milliseconds(50)) }
        }
    }

    /// The first message on `topic` at or after index `after` that `accept`s (waiting up to `limit`).
    func message(
        on topic: String, _ what: String, after: Int = 0, within limit: Duration = .seconds(20),
        _ accept: @escaping @Sendable (MQTTMessage) -> Bool = { !$0.payload.isEmpty }
    ) async throws -> MQTTMessage {
        try await withTimeout(limit, what) { [storage] in
            while true {
                let found = storage.entries.withLock { all in
                    all.dropFirst(after).first { $0.message.topic == topic && accept($0.message) }?.message
                }
                if let found { return found }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// The first non-empty JSON object on `topic` that `accept`s.
    func json(
        on topic: String, _ what: String, _ accept: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [String: Any] {
        let message = try await message(on: topic, what) { message in
            guard !message.payload.isEmpty, let json = MessageLog.object(message.payload) else { return false }
            return accept(json)
        }
        return try #require(MessageLog.object(message.payload))
    }

    static func object(_ payload: [UInt8]) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }
}

extension MessageLog {
    /// What a fresh subscriber to `filter` receives as retained, by topic.
    static func retained(_ broker: MosquittoBroker, _ filter: String) async throws -> [String: [UInt8]] {
        try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: filter) { late, messages in
            // Retained messages come right after the SUBACK; a marker published afterwards ends them.
            let marker = "test/marker-\(UUID().uuidString)"
            try await late.subscribe(marker)
            try await late.publish(topic: marker, string: "end")
            return try await withTimeout(.seconds(10), "the retained messages") {
                var retained: [String: [UInt8]] = [:]
                for await message in messages {
                    if message.topic == marker { break }
                    if message.retain { retained[message.topic] = message.payload }
                }
                return retained
            }
        }
    }
}
