import BeaconKit
import Coordinator
import Foundation
import Logging
import MQTT
import RegionSync
import RegionSyncMQTT
import RegionSyncTesting
import ServiceLifecycle
import TestSupport
import Testing
import WireProtocol

/// Whole wakes through `PhoneMQTTTransport` (the transport an app uses) against a real mosquitto,
/// with a coordinator's side played by this package's libmosquitto client, and with the real
/// coordinator.
@Suite("RegionSyncSession through a real mosquitto", .timeLimit(.minutes(2)))
struct RegionSyncSessionBrokerTests {
    @Test("A wake reads the retained regions, applies them, and reports what iOS holds, its events and the applied version")
    func wake() async throws {
        try await withMosquittoBroker { broker in
            let topics = try Topics()
            let client = try Identifier("phone-1")
            let v1 = (0..<4).map { ref($0) }
            try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: topics.clientReport(client)) { coordinator, reports in
                try await coordinator.publish(
                    topic: topics.clientRegions(client), payload: try WireCoding.encode(message(1, v1)), qos: .atLeastOnce, retain: true)

                // The phone: two app regions, beacon r5 of an earlier set in range before the wake.
                // The phone stands still through the test: a detection holds (the default, 1 s, ran out
                // before r2 was added when the suite's load stretched this test to 25 s).
                let fake = FakeRegionMonitor(options: .init(inRangeWindow: .seconds(100)), clock: ContinuousClock())
                await fake.addAppRegion(identifier: "app-1")
                await fake.addAppRegion(identifier: "app-2")
                let store = InMemoryRegionSyncStore()
                let applier = RegionApplier(monitor: fake, store: store, configuration: configuration)
                let log = RegionEventLog(configuration: configuration)
                let pump = Task { await log.consume(fake.events) }
                defer { pump.cancel() }
                await fake.startMonitoring(
                    BeaconRegion(identifier: configuration.identifier(forRegion: "r9"), identity: RegionIdentity(ref(9))!))
                await fake.detect([beacon(9), beacon(2)], at: .now)
                // The app's event pump has taken the enter before the wake starts (iOS delivers it at launch).
                try await withTimeout(.seconds(5), "the enter of r9 in the log") { while await log.inside != ["r9"] { await Task.yield() } }

                let transport = PhoneMQTTTransport(
                    configuration: PhoneMQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: client.rawValue))
                // What a wake does, not how fast: the suite shares a couple of threads with minutes of
                // simulation, so the budget is generous here. RegionSyncSessionDeadlineTests checks
                // that a wake gives up cleanly at its deadline.
                let session = RegionSyncSession(
                    client: client, topics: topics, transport: transport, applier: applier, events: log,
                    options: .init(
                        wakeBudget: .seconds(40), reportReserve: .seconds(5), regionsWait: .seconds(15), linger: .milliseconds(300)))
                let ranged = [RangedBeacon(uuid: venueUUID, major: 1, minor: 9, rssi: -70, accuracy: 2.5, proximity: "near")]
                let outcome = await session.wake(ranged: ranged)

                #expect(outcome.errors.isEmpty, "\(outcome.errors)")
                #expect(outcome.connected)
                #expect(outcome.applied.map(\.path) == [.full])
                #expect(outcome.reportsPublished == 2)
                #expect(
                    Set(await fake.monitoredRegions().map(\.identifier))
                        == Set(["app-1", "app-2"] + v1.map { configuration.identifier(forRegion: $0.id) }))

                let received = try await collect(2, from: reports, within: .seconds(30)).map {
                    try WireCoding.decode(ClientReport.self, from: $0.payload, topic: $0.topic)
                }
                // First report: before the regions were applied (r9 from the earlier set, its enter, the ranging).
                #expect(received[0].monitored == ["r9"])
                #expect(received[0].events.map { "\($0.type) \($0.region)" } == ["enter r9"])
                #expect(received[0].ranged == ranged)
                #expect(received[0].version == nil)
                // Last report: what iOS holds after the apply, the enter of r2 (added in range: known from requestState), v1.
                #expect(received[1].monitored == ["r0", "r1", "r2", "r3"])
                #expect(received[1].budget == 18)
                #expect(received[1].version == 1)
                #expect(received[1].events.map { "\($0.type) \($0.region)" } == ["enter r2"])
                #expect(try store.load().version == 1)
            }
        }
    }

    @Test("With report copies each report reaches the broker twice, the same bytes, the copy on the wake's second connection")
    func reportCopies() async throws {
        try await withMosquittoBroker { broker in
            let topics = try Topics()
            let client = try Identifier("phone-2")
            try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: topics.clientReport(client)) { coordinator, reports in
                try await coordinator.publish(
                    topic: topics.clientRegions(client), payload: try WireCoding.encode(message(1, [ref(0), ref(1)])), qos: .atLeastOnce,
                    retain: true)
                let fake = FakeRegionMonitor(options: .init(), clock: ContinuousClock())
                let log = RegionEventLog(configuration: configuration)
                let pump = Task { await log.consume(fake.events) }  // the states of the regions added
                defer { pump.cancel() }
                await log.record(.enter(identifier: configuration.identifier(forRegion: "r7")))
                let phone = PhoneMQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: "phone-2")
                let transport = PhoneMQTTTransport(configuration: phone, reportCopy: true)
                let session = RegionSyncSession(
                    client: client, topics: topics, transport: transport,
                    applier: RegionApplier(monitor: fake, configuration: configuration), events: log,
                    options: .init(
                        wakeBudget: .seconds(40), reportReserve: .seconds(5), regionsWait: .seconds(15), linger: .milliseconds(300),
                        reportCopy: true))
                let outcome = await session.wake()

                #expect(outcome.errors.isEmpty, "\(outcome.errors)")
                #expect(outcome.reportsPublished == 2)
                // Two connections of the wake: the reports' and the copies'.
                #expect(broker.log.contains("as phone-2 (") && broker.log.contains("as phone-2-copy ("), "\(broker.log)")
                let received = try await collect(4, from: reports, within: .seconds(30)).map(\.payload)
                let counts = Dictionary(received.map { ($0, 1) }, uniquingKeysWith: +)
                #expect(counts.count == 2 && counts.values.allSatisfy { $0 == 2 }, "\(counts.values)")
                let first = try WireCoding.decode(ClientReport.self, from: received[0], topic: "report")
                #expect(first.events.map(\.region) == ["r7"])
            }
        }
    }

    @Test("A first wake against the real coordinator: its report of an enter is answered with a plan, applied in the same wake")
    func realCoordinator() async throws {
        try await withMosquittoBroker { broker in
            let topics = try Topics()
            let client = try Identifier("phone-museum")
            var logger = Logger(label: "test.coordinator")
            logger.logLevel = .error
            let coordinatorConfiguration = try CoordinatorConfiguration(
                broker: broker.url, topologyDirectory: SharedData.packageRoot.appendingPathComponent("topology/museum"), topics: topics)
            let mqtt = try MQTTClient(configuration: coordinatorConfiguration.mqtt, logger: logger)
            let service = try CoordinatorService(configuration: coordinatorConfiguration, client: mqtt, logger: logger)
            let group = ServiceGroup(configuration: .init(services: [mqtt, service], logger: logger))
            let running = Task { try await group.run() }
            defer { running.cancel() }
            // Serving once its retained status says online.
            try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: topics.coordinatorStatus) { probe, statuses in
                _ = try await withTimeout(.seconds(30), "the coordinator's online status") {
                    for await message in statuses {
                        if (try? WireCoding.decode(CoordinatorStatus.self, from: message.payload, topic: message.topic))?.state == .online {
                            return
                        }
                    }
                }
            }

            // A phone on its first launch (no set, no retained message yet) that iOS saw enter the hall's entrance.
            let fake = FakeRegionMonitor(options: .init(inRangeWindow: .seconds(100)), clock: ContinuousClock())
            let store = InMemoryRegionSyncStore()
            let log = RegionEventLog(configuration: configuration)
            let pump = Task { await log.consume(fake.events) }
            defer { pump.cancel() }
            await log.record(.enter(identifier: configuration.identifier(forRegion: "hall-entrance")))
            let transport = PhoneMQTTTransport(
                configuration: PhoneMQTTConfiguration(url: "mqtt://127.0.0.1:\(broker.port)", clientID: client.rawValue))
            let session = RegionSyncSession(
                client: client, topics: topics, transport: transport,
                applier: RegionApplier(monitor: fake, store: store, configuration: configuration), events: log,
                options: .init(wakeBudget: .seconds(40), reportReserve: .seconds(5), regionsWait: .seconds(20), linger: .milliseconds(300)))
            let outcome = await session.wake()

            #expect(outcome.errors.isEmpty, "\(outcome.errors)")
            #expect(outcome.reportsPublished == 2)
            let applied = try #require(outcome.applied.first { $0.path != .ignored }, "the coordinator's answer was applied")
            let version = try #require(applied.appliedVersion)
            #expect(version >= 1)
            let held = Set(await fake.monitoredRegions().compactMap { configuration.region(forIdentifier: $0.identifier) })
            #expect(held.contains("hall-entrance") && held.count > 1 && held.count <= 20, "\(held)")
            #expect(outcome.lastReport?.version == version && Set(outcome.lastReport?.monitored ?? []) == held)
            #expect(try store.load().version == version)
            await group.triggerGracefulShutdown()
            _ = await running.result
        }
    }
}
