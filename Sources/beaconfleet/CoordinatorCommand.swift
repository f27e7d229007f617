import ArgumentParser
import Coordinator
import Foundation
import HomeAssistant
import Logging
import MQTT
import WireProtocol

/// How the coordinator and `watch` reach the broker: URL plus optional TLS files.
struct CoordinatorBrokerOptions: ParsableArguments {
    @Option(
        help:
            "Broker URL: mqtt://[user:pass@]host[:port] or mqtts://…; several separated by commas are tried in turn when one fails (a cluster's nodes)."
    )
    var broker: String

    @Option(help: "MQTT version: 5, 3.1.1, or auto (5, and 3.1.1 when the broker refuses 5, as NATS does).")
    var mqttVersion: String = "auto"

    @Option(help: "CA certificate file for mqtts://")
    var caFile: String?

    @Option(help: "Client certificate file for mqtts://")
    var certFile: String?

    @Option(help: "Client key file for mqtts://")
    var keyFile: String?

    @Option(help: "Topic prefix.")
    var prefix: String = Topics.defaultPrefix

    /// The first broker of `--broker`; ``apply(to:)`` adds the others.
    func url() throws -> BrokerURL {
        do {
            return try MQTTConfiguration.brokers(parsing: broker)[0]
        } catch {
            throw ValidationError("--broker \(broker): \(error)")
        }
    }

    func topics() throws -> Topics {
        do {
            return try Topics(prefix: prefix)
        } catch {
            throw ValidationError("--prefix \(prefix): \(error) (no '+', '#', leading or trailing '/')")
        }
    }

    func apply(to configuration: inout MQTTConfiguration) throws {
        configuration.tls = MQTTTLSFiles(caFile: caFile, certificateFile: certFile, keyFile: keyFile)
        do {
            configuration.failoverURLs = Array(try MQTTConfiguration.brokers(parsing: broker).dropFirst())
            try configuration.setVersion(commandLine: mqttVersion)
        } catch {
            throw ValidationError("\(error)")
        }
    }
}

/// `beaconfleet coordinator`: the service that keeps every client's monitored set of regions.
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinator",
        abstract: "Keep, for every phone and tag, the set of regions iOS should monitor, over MQTT.",
        discussion: """
            Subscribes to gateways' sightings and status and to phones' reports, estimates each client's \
            position on the venue's graph and publishes, per client, its monitored set (retained, versioned, \
            with the add/remove diff) and enter/exit/moved events. State survives restarts in --state. \
            The topology is reloaded on SIGHUP or when its files change; an invalid one is refused and \
            the previous one kept. See docs/coordinator.md.

            Examples:
              beaconfleet coordinator --broker mqtt://localhost --topology topology/museum
              beaconfleet coordinator --broker mqtt://coord:secret@broker:1883 \\
                  --topology topology/mall --state /var/lib/beaconfleet/state.sqlite \\
                  --http 0.0.0.0:9090 --budget 18
              beaconfleet coordinator --broker mqtt://localhost --topology topology/museum --planner nearest
              beaconfleet coordinator --broker mqtt://localhost --topology topology/museum --home-assistant
              beaconfleet coordinator --broker mqtt://127.0.0.1:4301,mqtt://127.0.0.1:4302,mqtt://127.0.0.1:4303 \\
                  --topology topology/museum          # a NATS cluster (scripts/nats-cluster): MQTT 3.1.1, failover
              beaconfleet coordinator --broker mqtts://broker:8883 --ca-file ca.pem \\
                  --topology venue/
            """)

    @OptionGroup var connection: CoordinatorBrokerOptions

    @OptionGroup(title: "Partitioned coordinators") var partitioning: CoordinatorPartitionOptions

    @Option(help: "The venue directory (see topology/README.md).")
    var topology: String

    @Option(help: "SQLite file for durable client state (default: in memory, lost on restart).")
    var state: String?

    @Option(
        help:
            "Serve the live map (/), the API (/api/…), /healthz and /metrics on [HOST:]PORT; a bare PORT binds 127.0.0.1 (loopback only)."
    )
    var http: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the bearer token the map and /api/… require (/healthz and /metrics stay open); else $BEACONFLEET_HTTP_TOKEN when set.",
            valueName: "file"))
    var httpTokenFile: String?

    @Option(help: "Region slots per client (1…20); phones may ask for fewer.")
    var budget: Int = 20

    @Option(
        help:
            "Planner: frontier (for phones iOS wakes while suspended: regions in range, then quiet regions that wake the phone before it reaches any other) or nearest (the nearest regions by walking distance; a baseline)."
    )
    var planner: String = PlannerChoice.frontier.rawValue

    @Option(help: "Forget clients not heard from for this many seconds and clear their retained regions.")
    var idleTimeout: Int = 900

    @Option(help: "Windows a healthy gateway must miss a client before it stops vouching for it.")
    var absenceWindows: Int = 3

    @Option(help: "Sightings batches that may wait before the oldest are shed.")
    var queueLimit: Int = 10_000

    @Option(help: "Check the topology's files for changes every this many seconds; 0: never (reload on SIGHUP only).")
    var topologyPoll: Double = 2

    @Option(
        help:
            "MQTT client id; with one, a persistent session: the broker queues reports and sightings while the coordinator is down and a restart with the same id receives them (default: random, clean session)."
    )
    var clientId: String?

    @Flag(help: "Announce clients and gateways to Home Assistant by MQTT discovery (docs/home-assistant.md).")
    var homeAssistant = false

    @Option(help: "Home Assistant's discovery prefix.")
    var homeAssistantPrefix: String = HomeAssistantConfiguration.defaultPrefix

    @Option(
        help: ArgumentHelp(
            "The live map's address as Home Assistant's users reach it, each device's configuration_url (default: from --http; 0.0.0.0 becomes this host's name).",
            valueName: "url"))
    var mapUrl: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard (1...20).contains(budget) else { throw ValidationError("--budget \(budget): must be 1…20 (iOS monitors at most 20 regions)") }
        guard idleTimeout > 0 else { throw ValidationError("--idle-timeout must be positive") }
        guard absenceWindows > 0 else { throw ValidationError("--absence-windows must be positive") }
        guard topologyPoll >= 0, topologyPoll.isFinite else {
            throw ValidationError("--topology-poll \(topologyPoll): must be 0 (never) or a number of seconds")
        }
        if let http { _ = try Self.parseAddress(http) }
        _ = try Self.parsePlanner(planner)
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level \(logLevel): not a level") }
        _ = try homeAssistantConfiguration()
    }

    func homeAssistantConfiguration() throws -> HomeAssistantConfiguration? {
        guard homeAssistant else { return nil }
        var configuration: HomeAssistantConfiguration
        do {
            configuration = try HomeAssistantConfiguration(prefix: homeAssistantPrefix)
        } catch {
            throw ValidationError("--home-assistant-prefix: \(error)")
        }
        do {
            if let mapUrl {
                configuration.mapURL = try HomeAssistantConfiguration.validMapURL(mapUrl)
            } else if let http, let (host, port) = try? Self.parseAddress(http), port != 0 {
                // Derived: left out rather than refused when this host's name makes no URL.
                configuration.mapURL = try? HomeAssistantConfiguration.validMapURL(
                    HomeAssistantConfiguration.mapURL(host: host, port: port))
            }
        } catch {
            throw ValidationError("--map-url: \(error)")
        }
        return configuration
    }

    /// The HTTP bearer token: `--http-token-file`, else `$BEACONFLEET_HTTP_TOKEN`, else none.
    func httpToken() throws -> HTTPAccessToken? {
        do {
            if let httpTokenFile { return try HTTPAccessToken(contentsOf: httpTokenFile) }
            if let text = ProcessInfo.processInfo.environment[HTTPAccessToken.environmentVariable] { return try HTTPAccessToken(text) }
        } catch {
            throw ValidationError("\(error)")
        }
        return nil
    }

    static func parsePlanner(_ text: String) throws -> PlannerChoice {
        guard let choice = PlannerChoice(rawValue: text) else {
            throw ValidationError("--planner \(text): expected \(PlannerChoice.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        return choice
    }

    static func parseAddress(_ text: String) throws -> (host: String, port: Int) {
        // A bare port: loopback only; another host (0.0.0.0 included) must be named.
        if let port = Int(text), (0...65535).contains(port) { return ("127.0.0.1", port) }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            throw ValidationError("--http \(text): expected PORT or HOST:PORT, for example 9090 or 127.0.0.1:9090")
        }
        let host = String(text[..<colon])
        return (host.isEmpty ? "127.0.0.1" : host, port)
    }

    func run() async throws {
        HeapRetention.keepFreedMemoryForReuse(queuedSightings: queueLimit)
        var logger = Logger(label: "beaconfleet.coordinator")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let directory = URL(fileURLWithPath: topology, isDirectory: true)
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw ValidationError("--topology \(topology): no such directory")
        }
        var configuration = try CoordinatorConfiguration(
            broker: try connection.url(), topologyDirectory: directory, statePath: state, http: try http.map(Self.parseAddress),
            topics: try connection.topics(),
            engine: .init(budget: budget, absenceWindows: absenceWindows, idleTimeout: Int64(idleTimeout) * 1000),
            clientID: clientId)
        configuration.planner = try Self.parsePlanner(planner)
        configuration.sightingsQueueLimit = queueLimit
        configuration.topologyPollInterval = .milliseconds(Int64((topologyPoll * 1000).rounded()))
        configuration.httpToken = try httpToken()
        try connection.apply(to: &configuration.mqtt)
        configuration.homeAssistant = try homeAssistantConfiguration()
        try partitioning.apply(to: &configuration)
        let application: CoordinatorApplication
        do {
            application = try CoordinatorApplication(configuration: configuration, logger: logger)
        } catch {
            // Name the cause and exit non-zero.
            logger.critical("\(error)")
            throw ExitCode.failure
        }
        do {
            try await application.runService()
        } catch {
            logger.critical("coordinator stopped: \(error)")
            throw ExitCode.failure
        }
    }
}
