import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

/// A phone's `regions` version never goes back, also when the coordinator lost the client's
/// history: restarted without `--state`, or after the client's record expired. Through a real broker.
@Suite("Coordinator versions a phone can trust", .serialized)
struct CoordinatorVersionTests {
    let topics = try! Topics()

    /// A phone on the broker: sends reports, reads the live (not retained) `regions` messages.
    struct Phone {
        let client: MQTTClient
        let id: Identifier
        let topics: Topics
        let messages: AsyncStream<MQTTMessage>

        var regionsTopic: String { topics.clientRegions(id) }

        func report(enter region: String, budget: Int = 20) async throws {
            let report = try WireCoding.encode(ClientReport(events: [RegionEvent(type: .enter, region: region)], budget: budget))
            try await client.publish(topic: topics.clientReport(id), payload: report, qos: .atLeastOnce)
        }

        /// The next message on the phone's regions topic that `accept`s, within 30 s.
        func next(_ what: String, _ accept: @escaping @Sendable (MQTTMessage) -> Bool) async throws -> MQTTMessage {
            let topic = regionsTopic
            let found: MQTTMessage? = try await withTimeout(.seconds(30), what) { [messages] () async throws -> MQTTMessage? in
                for await message in messages where message.topic == topic && accept(message) { return message }
                return nil
            }
            return try #require(found)
        }

        /// The next `regions` message published while subscribed (a retained re-delivery does not count).
        func nextRegions() async throws -> RegionsMessage {
            let message = try await next("a live regions message") { !$0.retain && !$0.payload.isEmpty }
            return try WireCoding.decode(RegionsMessage.self, from: message.payload, topic: message.topic)
        }
    }

    func withPhone(_ broker: MosquittoBroker, id: String, _ body: (Phone) async throws -> Void) async throws {
        try await withConnectedClient(MQTTConfiguration(url: broker.url)) { client in
            let phone = Phone(client: client, id: try Identifier(id), topics: topics, messages: client.messages)
            try await client.subscribe(phone.regionsTopic)
            try await body(phone)
        }
    }

    @Test("a coordinator restarted without --state publishes a phone a version above every one it had")
    func restartWithoutState() async throws {
        try await withMosquittoBroker { broker in
            try await withPhone(broker, id: "phone-restart") { phone in
                let first = try await CoordinatorHarness.start(broker: broker)
                try await phone.report(enter: "hall-entrance")
                let before = try await phone.nextRegions()
                // A second change (fewer slots), so the first coordinator's last version is above its first.
                try await phone.report(enter: "hall-entrance", budget: 12)
                let last = try await phone.nextRegions()
                #expect(last.version == before.version + 1)
                await first.stop()
                // No state: the new coordinator knows nothing of this phone.
                let second = try await CoordinatorHarness.start(broker: broker)
                try await phone.report(enter: "hall-entrance")
                let after = try await phone.nextRegions()
                #expect(after.version > last.version, "restarted at \(after.version), had \(last.version)")
                #expect(after.reason == "initial")
                await second.stop()
            }
        }
    }

    @Test("the same report listing one of the app's own regions in `monitored`, sent ten times: exactly one version")
    func appRegionsDoNotLoop() async throws {
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker)
            try await withPhone(broker, id: "phone-own") { phone in
                try await phone.report(enter: "hall-entrance")
                let first = try await phone.nextRegions()
                let report = try WireCoding.encode(
                    ClientReport(monitored: first.regions.map(\.id) + ["app-own-geofence"], budget: 20, version: first.version))
                for _ in 0..<10 { try await phone.client.publish(topic: topics.clientReport(phone.id), payload: report, qos: .atLeastOnce) }
                // All eleven reports applied (QoS 1, in order), then count what was published.
                _ = try await withTimeout(.seconds(30), "the coordinator applying the reports") {
                    while await coordinator.service.core.counters.reports < 11 { try await Task.sleep(for: .milliseconds(20)) }
                    return true
                }
                let counters = await coordinator.service.core.counters
                #expect(counters.regionsPublished == 1 && counters.reconciliations == 0)
                #expect(await coordinator.service.core.client("phone-own")?.version == first.version)
            }
            await coordinator.stop()
        }
    }

    @Test("a phone whose record expired gets a version above every one it had")
    func expiredClient() async throws {
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker) { configuration in
                configuration.engine.idleTimeout = 1_000
                configuration.housekeepingInterval = .milliseconds(100)
            }
            try await withPhone(broker, id: "phone-idle") { phone in
                try await phone.report(enter: "hall-entrance")
                let before = try await phone.nextRegions()
                // Expired: its retained regions is cleared.
                _ = try await phone.next("the cleared retained regions") { $0.payload.isEmpty }
                #expect(await coordinator.service.core.client("phone-idle") == nil)
                try await phone.report(enter: "hall-entrance")
                let after = try await phone.nextRegions()
                #expect(after.version > before.version, "after expiry \(after.version), had \(before.version)")
            }
            await coordinator.stop()
        }
    }
}
