import Coordinator
import Foundation
import Logging
import MQTT
import MosquittoTesting
import ServiceLifecycle
import TestSupport
import Topology
import Testing
import WireProtocol

@testable import Agent

/// Gateways configured from the coordinator (`P/v1/gateways/{gw}/config`), through a real mosquitto:
/// the coordinator (in process, as `beaconfleet coordinator` assembles it) derives each gateway's
/// configuration from its venue and publishes it retained; the agent (in process, replaying a
/// capture in real time) applies it while it runs. The venue is the museum with a `clients.csv`
/// admitting the capture's beacons of one major: changing that major at the coordinator changes
/// what the gateway publishes.
@Suite("Gateways configured from the coordinator, through a real broker", .serialized)
struct GatewayConfigurationBrokerTests {
    let topics = try! Topics()
    let gateway = try! Identifier("gw-1")
    let logger = Logger(label: "test")

    /// A copy of the museum whose clients.csv admits SyntheticCapture's UUID with major `major`.
    func venue(admitting major: UInt16) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("venue-\(UUID().uuidString)")
        try FileManager.default.copyItem(
            at: SharedData.packageRoot.appendingPathComponent("topology/museum", isDirectory: true), to: directory)
        try admit(major, in: directory)
        return directory
    }

    func admit(_ major: UInt16, in directory: URL) throws {
        try "role,uuid,major,name\nclient,\(SyntheticCapture.uuid),\(major),Badge\n"
            .write(to: directory.appendingPathComponent("clients.csv"), atomically: true, encoding: .utf8)
    }

    /// The coordinator for `venue` on `broker`, running until the returned task is cancelled.
    func startCoordinator(_ venue: URL, _ broker: MosquittoBroker) throws -> Task<Void, any Error> {
        var configuration = try CoordinatorConfiguration(broker: broker.url, topologyDirectory: venue, topics: topics)
        configuration.topologyPollInterval = .milliseconds(200)
        let application = try CoordinatorApplication(configuration: configuration, logger: logger)
        return Task { try await application.run() }
    }

    /// An agent for gw-1 replaying `capture` in real time with `spool`, running until ``RunningAgent/stop()`` or the capture ends.
    func startAgent(_ capture: String, _ broker: MosquittoBroker, spool: String) throws -> RunningAgent {
        var configuration = try AgentConfiguration(
            broker: broker.url.description, gateway: gateway, source: .replay(path: capture, speed: .factor(1)), spoolDirectory: spool)
        configuration.spoolSynchronous = false
        configuration.statusInterval = 1
        var mqtt = MQTTConfiguration(url: broker.url, clientID: "agent-\(UUID().uuidString.prefix(8))")
        mqtt.will = GatewayAgent.lastWill(configuration: configuration, version: "test")
        let client = try MQTTClient(configuration: mqtt, logger: logger)
        let agent = try GatewayAgent(
            configuration: configuration, source: try CaptureReplaySource(path: capture, speed: .factor(1)), client: client,
            version: "test",
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [.init(service: client), .init(service: agent, successTerminationBehavior: .gracefullyShutdownGroup)],
                logger: logger))
        return RunningAgent(agent: agent, group: group, task: Task { try await group.run() })
    }

    /// An agent and the group it runs in.
    struct RunningAgent {
        let agent: GatewayAgent
        let group: ServiceGroup
        let task: Task<Void, any Error>

        /// Stops it as SIGTERM would (its spool stays), and waits.
        func stop() async {
            await group.triggerGracefulShutdown()
            _ = try? await task.value
        }
    }

    /// The majors of the sightings in a batch.
    func majors(_ batch: SightingsBatch) -> Set<UInt16> { Set(batch.sightings.compactMap(\.major)) }

    /// Waits for the agent's status reporting `revision` applied; returns the highest `seq` received then.
    func waitForRevision(_ revision: String, _ collector: SightingsCollector, within limit: Duration) async throws -> UInt64 {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let now = collector.snapshot
            if now.statuses.contains(where: { $0.state == .online && $0.configuration?.revision == revision }) {
                return now.batches.keys.max() ?? 0
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("the agent never reported configuration revision \(revision)")
    }

    /// Waits for `count` batches with a `seq` above `seq` (a loaded machine delivers windows late;
    /// a fixed sleep would see too few); returns them in `seq` order.
    func waitForBatches(after seq: UInt64, count: Int, _ collector: SightingsCollector, within limit: Duration) async throws
        -> [(key: UInt64, value: SightingsBatch)]
    {
        let deadline = ContinuousClock.now + limit
        while true {
            let batches = collector.snapshot.batches.filter { $0.key > seq }.sorted { $0.key < $1.key }
            if batches.count >= count { return batches }
            guard ContinuousClock.now < deadline else {
                throw TestFailure("only \(batches.count) of \(count) batches after seq \(seq) within \(limit)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The revision the coordinator publishes for gw-1 of `venue`, as it derives it.
    func expectedRevision(_ venue: URL) throws -> String {
        let topology = try Topology.load(directory: venue)
        return GatewayConfiguration.plan(for: try #require(topology.gateways.first { $0.id == "gw-1" }), in: topology).revision
    }

    /// What both broker tests start from: a capture of 100 beacons for `captureSeconds`, a venue
    /// admitting major 100, a spool path, a broker, a collector of gw-1's output and a coordinator
    /// on the venue; all removed or stopped afterwards.
    func withCoordinatedGateway(
        captureSeconds: Double,
        _ body: (String, URL, String, MosquittoBroker, SightingsCollector, Task<Void, any Error>) async throws -> Void
    ) async throws {
        let capture = try SyntheticCapture(beacons: 100, duration: captureSeconds).write()
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let venue = try venue(admitting: 100)
        defer { try? FileManager.default.removeItem(at: venue) }
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: spool) }
        try await withMosquittoBroker { broker in
            let collector = try await SightingsCollector(broker: broker.url, topics: topics, gateway: gateway)
            let coordinator = try startCoordinator(venue, broker)
            defer { coordinator.cancel() }
            try await body(capture, venue, spool, broker, collector, coordinator)
        }
    }

    @Test("a gateway whose filter is changed at the coordinator applies it within one window")
    func changeAppliesWithinOneWindow() async throws {
        // 100 beacons: majors 100 (0–49) and 101 (50–99), each every 0.1 s, for 40 s of real time.
        try await withCoordinatedGateway(captureSeconds: 40) { capture, venue, spool, broker, collector, coordinator in
            let agent = try startAgent(capture, broker, spool: spool)

            // The retained configuration (admit major 100) is applied: batches hold major 100 only.
            let first = try expectedRevision(venue)
            let applied = try await waitForRevision(first, collector, within: .seconds(20))
            let before = try await waitForBatches(after: applied + 1, count: 2, collector, within: .seconds(20))
            #expect(before.allSatisfy { majors($0.value) == [100] }, "only the admitted major is published")

            // The venue changes at the coordinator: major 101 instead. It reloads, republishes, and the
            // agent applies it: at most the window in progress then still has major 100.
            try admit(101, in: venue)
            let second = try expectedRevision(venue)
            #expect(second != first)
            let changed = ContinuousClock.now
            let switched = try await waitForRevision(second, collector, within: .seconds(15))
            #expect(ContinuousClock.now - changed < .seconds(5), "the coordinator republished and the agent applied it promptly")
            let after = try await waitForBatches(after: switched + 1, count: 2, collector, within: .seconds(20))
            for (seq, batch) in after {
                #expect(majors(batch) == [101], "batch \(seq) (from the window after the one in progress): only major 101")
            }
            let status = try #require(collector.snapshot.statuses.last { $0.configuration?.revision == second })
            #expect(status.version == "test" && status.configuration?.overridden == nil)
            await agent.stop()
            coordinator.cancel()
            _ = try? await coordinator.value
            await collector.close()
        }
    }

    @Test("a gateway offline during the change applies it when it returns (the configuration is retained)")
    func offlineGatewayAppliesOnReturn() async throws {
        try await withCoordinatedGateway(captureSeconds: 60) { capture, venue, spool, broker, collector, coordinator in
            var running = try startAgent(capture, broker, spool: spool)
            _ = try await waitForRevision(try expectedRevision(venue), collector, within: .seconds(20))
            #expect(running.agent.configurationRevision == (try expectedRevision(venue)))

            // The gateway goes away; meanwhile the venue changes at the coordinator.
            await running.stop()
            let offline = collector.snapshot.statuses.count
            try admit(101, in: venue)
            let second = try expectedRevision(venue)
            try await Task.sleep(for: .seconds(2))  // the coordinator reloads and republishes, retained

            // It returns (a spool of its own: the first agent object still holds its lock in this
            // process) and applies the retained configuration at once.
            let returnSpool = spool + "-return"
            defer { try? FileManager.default.removeItem(atPath: returnSpool) }
            running = try startAgent(capture, broker, spool: returnSpool)
            let returned = try await waitForRevision(second, collector, within: .seconds(15))
            #expect(collector.snapshot.statuses.count > offline)
            #expect(running.agent.effectiveConfiguration.filter.keep?.uuids.contains { $0.majors == 101...101 } == true)
            let after = try await waitForBatches(after: returned + 1, count: 2, collector, within: .seconds(20))
            #expect(after.allSatisfy { majors($0.value) == [101] }, "it publishes what the changed venue admits")
            await running.stop()
            coordinator.cancel()
            _ = try? await coordinator.value
            await collector.close()
        }
    }

    @Test("the local settings override the coordinator's, setting by setting; an invalid configuration is refused whole")
    func localOverrides() throws {
        var settings = AgentSettings()
        try settings.set("broker", "mqtt://localhost", origin: .defaultValue)
        try settings.set("gateway", "gw-1", origin: .defaultValue)
        try settings.set("replay", "x.btsnoop", origin: .defaultValue)
        try settings.set("window", "2s", origin: .flag(name: "window"))
        let local = try AgentConfiguration(settings: settings)
        #expect(local.localOverrides == ["window"])
        let remote = GatewayConfiguration(
            gateway: "gw-1", window: 0.5, minRssi: -90, keep: [.init(uuid: SyntheticCapture.uuid, majors: [100, 100])]
        ).revised()
        let applied = try local.applying(remote)
        #expect(applied.windowMicros == 2_000_000 && applied.overridden == ["window"], "the flag wins")
        #expect(applied.filter.minimumRSSI == -90 && applied.filter.keep?.uuids.count == 1, "the rest is the coordinator's")
        #expect(applied.revision == remote.revision && remote.revision.count == 16)
        #expect(throws: RemoteConfigurationError.self) {
            try local.applying(GatewayConfiguration(gateway: "gw-1", keep: [.init(uuid: "not-a-uuid")]))
        }
        #expect(throws: RemoteConfigurationError.self) { try local.applying(GatewayConfiguration(gateway: "gw-1", minRssi: 40)) }
        // --print-config says which settings the coordinator may replace.
        let rendered = settings.rendered()
        #expect(rendered.contains("window = 2s    # flag --window; overrides the coordinator's"))
        #expect(rendered.contains("min-rssi = -127    # default; the coordinator's configuration replaces it"))
    }

    @Test("a window change closes the current window and the next runs to the new grid: no overlap, no gap")
    func retimedWindows() {
        var aggregator = WindowAggregator(windowMicros: 1_000_000)
        var closed: [ClosedWindow] = []
        aggregator.advance(to: 10_200_000) { closed.append($0) }
        aggregator.retime(windowMicros: 300_000)
        aggregator.advance(to: 12_000_000) { closed.append($0) }
        #expect(closed.map(\.startMicros) == [10_000_000, 11_000_000, 11_100_000, 11_400_000, 11_700_000])
        #expect(closed.map(\.endMicros) == [11_000_000, 11_100_000, 11_400_000, 11_700_000, 12_000_000])
    }
}

/// A test that cannot go on, with its cause.
struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
