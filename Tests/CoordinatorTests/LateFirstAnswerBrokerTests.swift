import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import Topology
import WireProtocol

/// A phone that reports before any answer has reached it (a slow subscription, a NATS node
/// recovering: its first answer is late) has applied nothing, so it has refused nothing: its empty
/// `monitored` list without a `version` must never be read as iOS refusing the plan, and the
/// coordinator must never publish a budget of 0 the phone did not state (a suspended phone with an
/// empty set can never be woken again). Real speed, one coordinator on a real mosquitto.
@Suite("A late first answer through the broker")
struct LateFirstAnswerBrokerTests {
    let topics = TestVenue.topics
    /// The museum's beacons: its venue UUID, major 1, minor per region.
    let museumUUID = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"

    /// Reports from a phone that ranged the beacon of `minor` (and holds nothing yet).
    func report(minor: UInt16, version: UInt64? = nil, monitored: [String] = []) throws -> [UInt8] {
        try WireCoding.encode(
            ClientReport(
                ranged: [RangedBeacon(uuid: museumUUID, major: 1, minor: minor, rssi: -62)], monitored: monitored, budget: 18,
                version: version))
    }

    /// Sends a report a second apart for each of `minors` (the phone ranging its way along the
    /// museum), then waits for the answer to the last one; returns every `regions` message seen.
    func walk(
        _ client: MQTTClient, messages: AsyncStream<MQTTMessage>, phone: Identifier, minors: [UInt16],
        version: @escaping @Sendable ([RegionsMessage]) -> UInt64? = { _ in nil }
    ) async throws -> [RegionsMessage] {
        let collected = Collected()
        let reader = Task {
            for await message in messages where message.topic == topics.clientRegions(phone) {
                if let regions = try? WireCoding.decode(RegionsMessage.self, from: message.payload, topic: message.topic) {
                    await collected.append(regions)
                }
            }
        }
        defer { reader.cancel() }
        for minor in minors {
            let seen = await collected.all
            let applied = version(seen)
            let held = applied.flatMap { v in seen.last { $0.version == v } }.map { $0.regions.map(\.id) } ?? []
            try await client.publish(
                topic: topics.clientReport(phone), payload: try report(minor: minor, version: applied, monitored: held))
            try await Task.sleep(for: .seconds(1))
        }
        // The answer to the last reports: a plan made where the phone is now, within 10 m of one of
        // the last two beacons it ranged (a set that still serves is kept: it need not follow every step).
        let beacons = try Set(minors.suffix(8)).map { try region(minor: $0) }.compactMap(\.position)
        _ = try await withTimeout(
            .seconds(20),
            "a plan made near the beacon of minor \(minors.last!) (plans at \(await collected.all.map { $0.position.map { "\($0.x),\($0.y)" } ?? "-" }))"
        ) {
            while true {
                if let position = await collected.all.last?.position,
                    beacons.contains(where: { ($0.x - position.x) * ($0.x - position.x) + ($0.y - position.y) * ($0.y - position.y) <= 100 }
                    )
                {
                    return true
                }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        return await collected.all
    }

    /// Up the museum's corridor at about 1.3 m/s, a report a second: the beacons of corridor-1 to
    /// corridor-4 (8 m apart), seven reports each.
    static let corridorWalk: [UInt16] = [6, 13, 20, 27].flatMap { Array(repeating: $0, count: 7) }

    /// The museum region whose beacon has `minor`.
    func region(minor: UInt16) throws -> Region {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        return try #require(topology.regions.first { $0.identity.minor == minor && $0.identity.major == 1 })
    }

    @Test("three reports a second apart before any answer arrives, then the phone ranges on: every plan keeps 18 regions and follows it")
    func lateFirstAnswer() async throws {
        try await CoordinatorHarness.withRegionsReader { coordinator, client, messages in
            let phone = try Identifier("late-phone")
            // The hall three times (the three reports before any answer), then walking up the corridor at
            // about 1.3 m/s: corridor-1 (9 m on), then corridor-2, -3 and -4 (8 m apart), far enough
            // that the set planned in the hall no longer does.
            let published = try await walk(
                client, messages: messages, phone: phone, minors: [0, 0, 0] + Self.corridorWalk)
            #expect(published.count >= 2, "it followed the phone: \(published.map(\.reason))")
            for message in published {
                #expect(message.budget == 18, "v\(message.version) \(message.reason): budget \(message.budget)")
                #expect(message.regions.count == 18, "v\(message.version) \(message.reason): \(message.regions.count) regions")
            }
            #expect(!published.contains { $0.reason == "reconcile" }, "\(published.map(\.reason))")
            let counters = await coordinator.service.core.counters
            #expect(counters.reconciliations == 0)
        }
    }

    @Test("a phone that applies the answers once they arrive is in agreement: no reconcile, still 18 regions")
    func appliedAfterwards() async throws {
        try await CoordinatorHarness.withRegionsReader { _, client, messages in
            let phone = try Identifier("applying-phone")
            // The first two reports go out before any answer; from then on the phone reports the
            // latest version it has and exactly its set.
            let published = try await walk(
                client, messages: messages, phone: phone,
                minors: [0, 0] + Self.corridorWalk
            ) { seen in
                seen.last?.version
            }
            #expect(published.allSatisfy { $0.budget == 18 && $0.regions.count == 18 }, "\(published.map { ($0.reason, $0.budget) })")
            #expect(!published.contains { $0.reason == "reconcile" }, "\(published.map(\.reason))")
        }
    }
}

/// The `regions` messages a test's reader has seen, in order.
private actor Collected {
    private(set) var all: [RegionsMessage] = []
    func append(_ message: RegionsMessage) { all.append(message) }
}
