import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import Simulator
import TestSupport
import Testing
import Topology
import WireProtocol

/// The coordinator through a real mosquitto: walking phones, a kill -9 and restart, a storm of bad input.
@Suite("Coordinator through a real broker", .serialized)
struct CoordinatorBrokerTests {
    let topics = try! Topics()

    func museum() throws -> Topology { try Topology.load(directory: CoordinatorHarness.museum) }

    // The live simulation's phones are RegionSync on the fake iOS (SimulatedPhone), suspended:
    // coverage counts arrivals (within a region's radius) whose region was monitored at some
    // moment of the approach, IOS.md's definition, against the coordinator's default planner.
    @Test("suspended phones walking across the museum have nearly every arrival monitored on the approach; versions never repeat")
    func walkAcrossTheMuseum() async throws {
        let topology = try museum()
        // It starts inside the hall, not at the entrance 0.5 m from the hall's edge: that first
        // entry would come before the answer to the phone's first report could, and under load it
        // did, which says nothing about rotation.
        let route = try CoordinatorHarness.route(
            topology,
            through: [
                "hall", "antiquity-west-1", "antiquity-west-3", "corridor-2", "medieval-east-2", "medieval-east-3",
                "corridor-4", "modern-west-1", "modern-west-3", "north-end", "library",
            ])
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker)
            var configuration = LiveSimulation.Configuration(broker: broker.url, topology: topology, topics: topics, clients: 2)
            configuration.routes = [route, route.reversed()]
            configuration.duration = 150
            // 2x: the walk is timed by the wall clock, and at 10x and 5x a suite loaded by other
            // work (2 cores) delayed answers enough to miss 4 of 38 arrivals.
            configuration.speedup = Double(ProcessInfo.processInfo.environment["COORDINATOR_TEST_SPEEDUP"] ?? "") ?? 2
            configuration.tick = 0.25
            let report = try await LiveSimulation(configuration: configuration).run { debug($0.summary + " missed: \($0.missed)") }
            debug("simulation done; missed \(report.missed)")
            debug(
                coordinator.service.metrics.render().split(separator: "\n").filter {
                    $0.contains("_sum") || $0.contains("_count") || $0.contains("plans")
                }.joined(separator: "\n"))
            await coordinator.stop()
            debug("coordinator stopped")
            #expect(report.entries >= 10, "the walk crosses regions: \(report.summary)")
            #expect(Double(report.coveredEntries) >= 0.9 * Double(report.entries), "missed: \(report.missed)")
            #expect(report.versionRepeats == 0 && report.versionGaps == 0, "\(report.summary)")
            #expect(report.regionsMessages > 2)
            let counters = await coordinator.service.core.counters
            #expect(counters.invalid == 0)
        }
    }

    @Test("kill -9 mid-walk and a restart: every client keeps its set and its version continues", .requiresBeaconFleetBinary)
    func killAndRestart() async throws {
        let topology = try museum()
        let files = try CoordinatorHarness.ProcessFiles("coordinator-kill")
        defer { files.release() }
        try await withMosquittoBroker { broker in
            let nearest: [String] = []  // the default planner: frontier
            var process = try CoordinatorHarness.launch(broker: broker, files: files, extraArguments: nearest)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            try await CoordinatorHarness.waitUntilServing(files, process: process)
            var configuration = LiveSimulation.Configuration(broker: broker.url, topology: topology, topics: topics, clients: 3)
            configuration.duration = 60
            configuration.speedup = 6
            configuration.tick = 0.25
            configuration.seed = 11
            let simulation = Task { try await LiveSimulation(configuration: configuration).run() }
            try await Task.sleep(for: .seconds(4))
            // kill -9: no clean shutdown, no chance to write anything more.
            kill(process.processIdentifier, SIGKILL)
            _ = await process.exited()
            let store = try StateStore(path: files.state)
            let before = Dictionary(uniqueKeysWithValues: try store.loadClients().map { ($0.id, $0) })
            #expect(before.count == 3, "every phone was planned before the kill")
            process = try CoordinatorHarness.launch(broker: broker, files: files, extraArguments: nearest)
            // Resumed: the API shows each client's stored version and set.
            for (id, stored) in before {
                let (code, body) = try await CoordinatorHarness.get(port: files.port, "/api/clients/\(id)")
                #expect(code == 200)
                let snapshot = try WireCoding.makeDecoder().decode(ClientSnapshot.self, from: body)
                #expect(snapshot.version >= stored.version)
                if snapshot.version == stored.version { #expect(snapshot.regions == stored.regions) }
            }
            let report = try await simulation.value
            let after = try store.loadClients()
            kill(process.processIdentifier, SIGTERM)
            _ = await process.exited()
            #expect(report.versionRepeats == 0, "no version was ever reused: \(report.summary)")
            for client in after {
                #expect(client.version >= before[client.id]?.version ?? 0, "\(client.id) continued from its stored version")
            }
            #expect(after.map(\.version).reduce(0, +) > before.values.map(\.version).reduce(0, +), "plans went on after the restart")
            #expect(report.coverage >= 0.9, "\(report.summary) missed \(report.missed)")
        }
    }

    @Test("a named coordinator killed with -9 still answers the report a phone sent while it was down", .requiresBeaconFleetBinary)
    func reportWhileDownIsAnsweredAfterRestart() async throws {
        let files = try CoordinatorHarness.ProcessFiles("coordinator-down")
        defer { files.release() }
        let named = ["--client-id", "coordinator-under-test"]
        try await withMosquittoBroker { broker in
            var process = try CoordinatorHarness.launch(broker: broker, files: files, extraArguments: named)
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            try await CoordinatorHarness.waitUntilServing(files, process: process)
            kill(process.processIdentifier, SIGKILL)
            _ = await process.exited()
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { phone in
                // Sent while no coordinator is connected: only the broker's session for it can keep it.
                let report = try WireCoding.encode(ClientReport(events: [RegionEvent(type: .enter, region: "hall-entrance")]))
                try await phone.publish(topic: topics.clientReport(try Identifier("phone-late")), payload: report, qos: .atLeastOnce)
                process = try CoordinatorHarness.launch(broker: broker, files: files, extraArguments: named)
                let messages = phone.messages
                try await phone.subscribe(topics.clientRegions(try Identifier("phone-late")))
                let answer: MQTTMessage?
                do {
                    // The relaunched binary starts, restores and reconnects within this bound: 60 s, as
                    // `waitUntilServing` allows, since beside a loaded machine's other work it can take
                    // more than 30 (seen once in CI). A bound, not a measure of speed.
                    answer = try await withTimeout(.seconds(60), "regions for phone-late") { () async throws -> MQTTMessage? in
                        for await message in messages where message.topic.hasSuffix("/phone-late/regions") && !message.payload.isEmpty {
                            return message
                        }
                        return nil
                    }
                } catch {
                    let text = (try? String(contentsOf: files.log, encoding: .utf8)) ?? ""
                    throw CoordinatorError("\(error); the coordinator's log:\n\(text)")
                }
                let regions = try WireCoding.decode(RegionsMessage.self, from: try #require(answer).payload, topic: "regions")
                #expect(regions.version >= 1)
                #expect(regions.regions.contains { $0.id == "hall-entrance" })
            }
            kill(process.processIdentifier, SIGTERM)
            _ = await process.exited()
        }
    }

    @Test(
        "SIGHUP reloads the topology: an invalid one is refused with the error in the status and the coordinator keeps serving; a valid one re-plans every client",
        .requiresBeaconFleetBinary)
    func reloadOnHangup() async throws {
        let files = try CoordinatorHarness.ProcessFiles("coordinator-reload")
        defer { files.release() }
        let venue = files.directory.appendingPathComponent("museum", isDirectory: true)
        try FileManager.default.copyItem(at: CoordinatorHarness.museum, to: venue)
        let regionsFile = venue.appendingPathComponent("regions.csv")
        let original = try String(contentsOf: regionsFile, encoding: .utf8)
        try await withMosquittoBroker { broker in
            // --topology-poll 0: only SIGHUP reloads, so what happens below is the signal's doing. The
            // nearest-N planner takes a new region beside the phone at once; the frontier planner
            // (the default) keeps its incumbents in range and may leave it out, publishing nothing.
            let process = try CoordinatorHarness.launch(
                broker: broker, topology: venue, files: files, extraArguments: ["--topology-poll", "0", "--planner", "nearest"])
            defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
            try await CoordinatorHarness.waitUntilServing(files, process: process)
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { phone in
                let messages = phone.messages
                let regionsTopic = topics.clientRegions(try Identifier("phone-reload"))
                try await phone.subscribe(regionsTopic)
                try await phone.subscribe(topics.coordinatorStatus)
                /// The next `regions` message for the phone.
                func nextRegions() async throws -> RegionsMessage {
                    let message: MQTTMessage? = try await withTimeout(.seconds(30), "regions for phone-reload") {
                        () async throws -> MQTTMessage? in
                        for await message in messages where message.topic == regionsTopic && !message.payload.isEmpty { return message }
                        return nil
                    }
                    return try WireCoding.decode(RegionsMessage.self, from: try #require(message).payload, topic: regionsTopic)
                }
                /// The next coordinator status that `accept`s.
                func nextStatus(_ what: String, _ accept: @escaping @Sendable (CoordinatorStatus) -> Bool) async throws -> CoordinatorStatus
                {
                    let status: CoordinatorStatus? = try await withTimeout(.seconds(30), what) { () async throws -> CoordinatorStatus? in
                        for await message in messages where message.topic == topics.coordinatorStatus {
                            if let status = try? WireCoding.decode(CoordinatorStatus.self, from: message.payload, topic: message.topic),
                                accept(status)
                            {
                                return status
                            }
                        }
                        return nil
                    }
                    return try #require(status)
                }
                // Online is announced after subscribing (a report sent before would be lost: clean session).
                _ = try await nextStatus("the coordinator online") { $0.state == .online }
                // Woken by the hall's beacon, ranged close by (an enter alone places the phone only
                // within the beacon's reach, where the new region below need not be nearest).
                let report = try WireCoding.encode(
                    ClientReport(
                        ranged: [RangedBeacon(uuid: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E", major: 1, minor: 0, rssi: -66)],
                        events: [RegionEvent(type: .enter, region: "hall")]))
                try await phone.publish(topic: topics.clientReport(try Identifier("phone-reload")), payload: report, qos: .atLeastOnce)
                let first = try await nextRegions()
                // Invalid: refused, the error (naming the file) in the retained status, still serving.
                try (original + "broken,,1,999,not-a-number,5,G,3,\n").write(to: regionsFile, atomically: true, encoding: .utf8)
                kill(process.processIdentifier, SIGHUP)
                let refused = try await nextStatus("a status with the reload error") { $0.error != nil }
                #expect(refused.state == .online && refused.error?.contains("regions.csv:") == true, "\(refused.error ?? "")")
                #expect(process.isRunning)
                // Valid, with a new region by the hall (and its link): every client re-planned, the
                // new region added, the error cleared.
                try (original + "hall-kiosk,,1,900,11,7,G,1.5,\n").write(to: regionsFile, atomically: true, encoding: .utf8)
                let linksFile = venue.appendingPathComponent("links.csv")
                try (try String(contentsOf: linksFile, encoding: .utf8) + "hall-kiosk,hall,,\n").write(
                    to: linksFile, atomically: true, encoding: .utf8)
                kill(process.processIdentifier, SIGHUP)
                let replanned = try await nextRegions()
                #expect(replanned.version == first.version + 1 && replanned.reason == "topology")
                #expect(replanned.add.map(\.id).contains("hall-kiosk") && !first.regions.contains { $0.id == "hall-kiosk" })
                _ = try await nextStatus("a status without the error") { $0.error == nil && $0.state == .online }
            }
            kill(process.processIdentifier, SIGTERM)
            _ = await process.exited()
        }
    }

    @Test("a storm of malformed and oversized messages is counted, never fatal; a good report is still served")
    func storm() async throws {
        try await CoordinatorHarness.withRegionsReader { coordinator, client, messages in
            var rng = SystemRandomNumberGenerator()
            let bad: [(String, [UInt8])] = [
                ("beaconfleet/v1/gateways/gw-1/sightings", Array("{not json".utf8)),
                ("beaconfleet/v1/gateways/gw%1/sightings", Array(#"{"v":1}"#.utf8)),
                ("beaconfleet/v1/gateways/gw-1/sightings", Array(#"{"v":1,"seq":1,"start":"x","end":"y","sightings":[]}"#.utf8)),
                ("beaconfleet/v1/clients/phone-9/report", Array(#"{"v":1,"events":[{"type":"teleport","region":"hall"}]}"#.utf8)),
                ("beaconfleet/v1/clients/phone-9/report", Array(#"{"v":7}"#.utf8)),
                ("beaconfleet/v1/gateways/gw-1/status", Array(#"{"v":1,"state":"sideways"}"#.utf8)),
                ("beaconfleet/v1/gateways/gw-1/sightings", [UInt8](repeating: 0x7B, count: WireCoding.maximumPayloadBytes + 10)),
            ]
            var sent = 0
            for round in 0..<300 {
                for (topic, payload) in bad {
                    // QoS 0 may be dropped by a busy broker; the oversized ones (whose count is
                    // checked exactly) go at QoS 1.
                    let oversized = payload.count > WireCoding.maximumPayloadBytes
                    try client.enqueue(topic: topic, payload: payload, qos: oversized ? .atLeastOnce : .atMostOnce)
                    sent += 1
                }
                let garbage = (0..<Int.random(in: 1...400, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                try client.enqueue(topic: "beaconfleet/v1/clients/p\(round)/report", payload: garbage, qos: .atMostOnce)
                sent += 1
                if round % 50 == 0 { await client.drain() }
            }
            await client.drain()
            // Still alive: a good report gets its regions.
            let report = try WireCoding.encode(ClientReport(events: [RegionEvent(type: .enter, region: "hall-entrance")]))
            try await client.publish(topic: topics.clientReport(try Identifier("phone-ok")), payload: report)
            let answer: MQTTMessage? = try await withTimeout(.seconds(20), "regions for phone-ok") { () async throws -> MQTTMessage? in
                for await message in messages where message.topic.contains("/phone-ok/") { return message }
                return nil
            }
            let regions = try WireCoding.decode(RegionsMessage.self, from: try #require(answer).payload, topic: "regions")
            #expect(regions.regions.contains { $0.id == "hall-entrance" })
            // The report jumped the queue (reports are served first): let the sightings behind it drain.
            var counters = await coordinator.service.core.counters
            let deadline = ContinuousClock.now + .seconds(20)
            while counters.oversizedPayloads < 300 || counters.invalid < UInt64(sent) * 9 / 10, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                counters = await coordinator.service.core.counters
            }
            #expect(counters.invalid >= UInt64(sent) * 9 / 10, "\(counters.invalid) of \(sent) counted as invalid")
            #expect(counters.oversizedPayloads == 300)
            #expect(await coordinator.service.core.clientCount == 1, "no bad message created a client")
        }
    }

    @Test("the gateways a tag walk plays are online in /api/gateways while it walks, as agents say, and offline once it ends")
    func simulatedGatewaysSayTheyAreUp() async throws {
        let topology = try museum()
        let ids = Set(topology.gateways.map(\.id))
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker)
            func states() -> [String: String] {
                Dictionary(uniqueKeysWithValues: coordinator.application.gateways.gateways().map { ($0.id, $0.state) })
            }
            func wait(until done: () -> Bool) async {
                for _ in 0..<100 where !done() { try? await Task.sleep(for: .milliseconds(100)) }
            }
            var configuration = LiveSimulation.Configuration(
                broker: broker.url, topology: topology, topics: topics, clients: 1, mode: .tags)
            configuration.duration = 6
            configuration.speedup = 2
            let walk = Task { try await LiveSimulation(configuration: configuration).run() }
            await wait { ids.allSatisfy { states()[$0] == "online" } }
            let walking = coordinator.application.gateways.gateways().filter { ids.contains($0.id) }
            #expect(walking.count == ids.count && walking.allSatisfy { $0.state == "online" }, "\(walking)")
            #expect(walking.allSatisfy { $0.adapter == "simulated" && $0.version == BeaconFleetVersion.current })
            let report = try await walk.value
            #expect(report.sightingsSent > 0)
            await wait { ids.allSatisfy { states()[$0] == "offline" } }
            #expect(ids.allSatisfy { states()[$0] == "offline" }, "\(states())")
            await coordinator.stop()
        }
    }
}
