import Agent
import ArgumentParser
import Coordinator
import Foundation
import HomeAssistant
import Logging
import MQTT
import MosquittoTesting
import ServiceLifecycle
import Simulator
import Synchronization
import Topology
import WireProtocol

/// `beaconfleet demo`: the whole fleet on one machine, in one command.
///
/// Starts a private mosquitto on a free loopback port, the coordinator on a venue, simulated
/// gateways hearing walking tags, walking phones that report and apply their `regions`, and (when
/// the shared captures are present) a real agent replaying a recorded HCI capture; prints every
/// rotation and event as `watch` would, with a running summary (phones: coverage and churn; tags,
/// which are located and not planned: the room shown against the true one, when the venue has
/// rooms), until Ctrl-C or `--duration`. Everything it started is stopped on the way out.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the whole fleet locally: broker, coordinator, gateways and walking phones.",
        discussion: """
            Everything runs on this machine: a private mosquitto on a free loopback port (not the \
            system one), the coordinator on the venue with its state in a temporary SQLite file, \
            simulated gateways hearing walking tags, walking phones that report what they range \
            and apply each regions message, and a real gateway agent replaying a recorded HCI \
            capture when one is found. The output is the same live tail `beaconfleet watch` \
            prints, with a summary every few seconds: coverage and churn for the phones, and for \
            the tags (located, not planned) how often the room shown is the true one, when the \
            venue has rooms (its areas.csv, or the rooms/areas.csv kept beside it). Ctrl-C (or \
            --duration) stops everything it started.

            Examples:
              beaconfleet demo
              beaconfleet demo --topology topology/mall --phones 20 --tags 5 --speedup 4
              beaconfleet demo --duration 60 --http 127.0.0.1:9090
              beaconfleet demo --replay ../shared/data/captures/horizon74-ibeacon.btsnoop
            """
    )

    @Option(help: "The venue directory.")
    var topology: String = "topology/museum"

    @Option(help: "Walking phones (report over MQTT and apply their regions).")
    var phones: Int = 4

    @Option(help: "Walking tags heard by the venue's simulated gateways.")
    var tags: Int = 2

    @Option(help: "Simulated seconds per real second.")
    var speedup: Double = 2

    @Option(help: "Stop after this many real seconds (default: run until Ctrl-C).")
    var duration: Double?

    @Option(help: "A capture for a real agent to replay (default: the shared horizon74 capture when present; 'none' for no agent).")
    var replay: String?

    @Option(help: "Also serve the coordinator's live map (/), API, /healthz and /metrics on [HOST:]PORT (a bare PORT: 127.0.0.1).")
    var http: String?

    @Option(
        help: """
            Rooms for presence, an areas.csv: the coordinator shows rooms and the tags' summary scores them (default: the venue's \
            rooms/areas.csv when it has no areas.csv of its own; 'none' for none).
            """)
    var areas: String?

    @Option(help: "Random seed for the walks and the radio.")
    var seed: UInt64 = 1

    @Flag(help: "Print only the summaries, not every rotation and event.")
    var quiet = false

    @Flag(
        help: "Announce the demo's clients and gateways to Home Assistant by MQTT discovery (scripts/home-assistant runs one against it).")
    var homeAssistant = false

    func validate() throws {
        guard phones >= 0, tags >= 0, phones + tags > 0 else { throw ValidationError("--phones and --tags: at least one walker is needed") }
        guard speedup > 0 else { throw ValidationError("--speedup must be positive") }
        if let duration, duration <= 0 { throw ValidationError("--duration must be positive") }
        if let http { _ = try CoordinatorCommand.parseAddress(http) }
    }

    func run() async throws {
        // The demo's output is the live tail; only warnings and errors from the parts are shown.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "beaconfleet.demo")
        let workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-demo-\(getpid())")
        try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workDirectory) }
        var directory = URL(fileURLWithPath: topology, isDirectory: true)
        // The rooms: the coordinator and the walkers load the venue with them, from a copy.
        let rooms = areas == "none" ? nil : areas.map { URL(fileURLWithPath: $0) } ?? VenueWithAreas.keptBeside(directory)
        let venue: Topology
        do {
            if let rooms {
                let copy = workDirectory.appendingPathComponent("venue", isDirectory: true)
                try VenueWithAreas.write(directory, areas: rooms, into: copy)
                directory = copy
            }
            venue = try Topology.load(directory: directory)
        } catch {
            throw CommandFailure("--topology \(topology)\(rooms.map { " with the rooms of \($0.path)" } ?? ""): \(error)")
        }

        let broker: MosquittoBroker
        do {
            broker = try await MosquittoBroker.start()
        } catch {
            throw CommandFailure("cannot start a local mosquitto: \(error)")
        }
        let topics = try Topics()
        DemoOutput.say("broker      \(broker.url) (private mosquitto, pid \(broker.processIdentifier.map(String.init) ?? "?"))")
        DemoOutput.say(
            "venue       \(topology): \(venue.regions.count) regions, \(venue.gateways.count) gateways"
                + (rooms.map { ", \(venue.areas.count) rooms from \($0.path)" } ?? ""))

        do {
            try await runFleet(
                venue: venue, directory: directory, broker: broker, topics: topics, workDirectory: workDirectory, logger: logger)
        } catch {
            await broker.stop()
            throw error
        }
        await broker.stop()
        DemoOutput.say("stopped     broker, coordinator, gateways and walkers")
    }

    private func runFleet(venue: Topology, directory: URL, broker: MosquittoBroker, topics: Topics, workDirectory: URL, logger: Logger)
        async throws
    {
        // The coordinator, assembled exactly as `beaconfleet coordinator` assembles it, in this group
        // beside the demo's own parts (it stops last, after the walkers and the agent).
        var coordinatorConfiguration = try CoordinatorConfiguration(
            broker: broker.url, topologyDirectory: directory, statePath: workDirectory.appendingPathComponent("state.sqlite").path,
            http: try http.map(CoordinatorCommand.parseAddress), topics: topics, engine: .init(budget: 20))
        if homeAssistant {
            var homeAssistant = try HomeAssistantConfiguration()
            if let (host, port) = coordinatorConfiguration.http, port != 0 {
                homeAssistant.mapURL = HomeAssistantConfiguration.mapURL(host: host, port: port)
            }
            coordinatorConfiguration.homeAssistant = homeAssistant
        }
        let coordinator = try CoordinatorApplication(configuration: coordinatorConfiguration, logger: logger)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: coordinator)]
        if let (host, port) = coordinatorConfiguration.http {
            DemoOutput.say("map         http://\(host):\(port)/  (also /api/clients, /api/topology, /metrics, /healthz)")
        }

        // The live tail, the same lines `beaconfleet watch` prints.
        let watchClient = try MQTTClient(url: broker.url, clientID: "beaconfleet-demo-watch", logger: logger)
        services.append(.init(service: watchClient))
        services.append(.init(service: TailService(client: watchClient, formatter: EventFormatter(topics: topics), quiet: quiet)))

        // A real agent replaying a recorded capture, when there is one.
        if let capture = replayCapture() {
            let gateway = try Identifier("replay-gw")
            let agentConfiguration = try AgentConfiguration(
                broker: broker.url.description, gateway: gateway, source: .replay(path: capture, speed: .factor(speedup)),
                spoolDirectory: workDirectory.appendingPathComponent("spool").path)
            var agentMQTT = MQTTConfiguration(url: broker.url, clientID: "beaconfleet-demo-agent")
            agentMQTT.will = GatewayAgent.lastWill(configuration: agentConfiguration, version: BeaconFleetVersion.current)
            let agentClient = try MQTTClient(configuration: agentMQTT, logger: logger)
            let source = try CaptureReplaySource(path: capture, speed: .factor(speedup))
            let agent = try GatewayAgent(
                configuration: agentConfiguration, source: source, client: agentClient, version: BeaconFleetVersion.current, logger: logger)
            services.append(.init(service: agentClient))
            services.append(.init(service: agent, successTerminationBehavior: .ignore))
            DemoOutput.say("agent       \(gateway) replaying \(capture) at \(speedup)x")
        }

        // Walkers: phones over MQTT and tags heard by the venue's simulated gateways.
        let tally = DemoTally()
        let runFor = duration.map { $0 * speedup } ?? 365 * 86_400
        for (mode, count) in [(LiveSimulation.Mode.phones, phones), (.tags, tags)] where count > 0 {
            var configuration = LiveSimulation.Configuration(
                broker: broker.url, topology: venue, topics: topics, clients: count, mode: mode)
            configuration.speedup = speedup
            configuration.duration = runFor
            configuration.seed = seed &+ (mode == .phones ? 0 : 1)
            configuration.clientPrefix = mode == .phones ? "phone" : "tag"
            configuration.broker.clientID = "beaconfleet-demo-\(mode.rawValue)"
            // Each simulation plays the venue's gateways with its own sequence numbers, so only one
            // may: two would publish every window twice under the same gateway and sequence, and
            // the coordinator keeps whichever copy comes first (a duplicate is skipped). With tags
            // walking, their simulation is the gateways and phones are located by their reports.
            if mode == .phones && tags > 0 { configuration.phonesAdvertise = false }
            services.append(
                .init(
                    service: WalkersService(simulation: LiveSimulation(configuration: configuration), mode: mode, tally: tally),
                    successTerminationBehavior: .gracefullyShutdownGroup))
            DemoOutput.say("walkers     \(count) \(mode.rawValue) at \(speedup)x real time")
        }
        DemoOutput.say(duration.map { "running     for \($0) s" } ?? "running     until Ctrl-C")

        let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
        for line in tally.finalLines() { DemoOutput.say(line) }
    }

    /// The capture the demo's agent replays: `--replay`, else the shared horizon74 capture if present.
    private func replayCapture() -> String? {
        if let replay { return replay == "none" ? nil : replay }
        let shared = URL(fileURLWithPath: "../shared/data/captures/horizon74-ibeacon.btsnoop").standardizedFileURL.path
        return FileManager.default.fileExists(atPath: shared) ? shared : nil
    }
}

/// Lines for the operator, on standard output, unbuffered.
enum DemoOutput {
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// Prints the live tail of rotations and events until graceful shutdown.
struct TailService: Service {
    let client: MQTTClient
    let formatter: EventFormatter
    let quiet: Bool

    func run() async throws {
        let messages = client.messages
        try await cancelWhenGracefulShutdown {
            try await client.connected()
            for filter in formatter.filters { _ = try await client.subscribe(filter, qos: .atLeastOnce) }
            for await message in messages where !quiet {
                if let line = formatter.line(topic: message.topic, payload: message.payload) { DemoOutput.say(line) }
            }
        }
    }
}

/// Runs one group of live walkers until their duration or graceful shutdown.
struct WalkersService: Service {
    let simulation: LiveSimulation
    let mode: LiveSimulation.Mode
    let tally: DemoTally

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            _ = try await simulation.run { report in
                tally.record(report, mode: mode)
                DemoOutput.say("summary     \(mode.rawValue): \(report.summary)")
            }
        }
    }
}

/// The latest report of each walker group, for the closing summary.
final class DemoTally: Sendable {
    private let reports = Mutex<[String: LiveSimulationReport]>([:])

    func record(_ report: LiveSimulationReport, mode: LiveSimulation.Mode) {
        reports.withLock { $0[mode.rawValue] = report }
    }

    func finalLines() -> [String] {
        reports.withLock { reports in
            reports.keys.sorted().map { "final       \($0): \(reports[$0]!.summary)" }
        }
    }
}
