import Agent
public import ArgumentParser
import Foundation
import Logging
import MQTT
import WireProtocol

/// `beaconfleet agent`: the gateway agent (live adapter or capture replay → MQTT).
///
/// Shared by the `beaconfleet` tool and the small `beaconfleet-agent` executable that gateways run
/// (see `BeaconFleetAgent`); both parse the same flags.
public struct AgentCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "agent",
        abstract: "Scan BLE beacons on a gateway (or replay a capture) and publish sightings per window over MQTT.",
        discussion: """
            Reads HCI LE advertising reports from a live adapter (--adapter hciN, through libbluetooth; \
            needs root or cap_net_raw,cap_net_admin) or from a capture (--replay FILE: btsnoop, pcap, pcapng), \
            decodes iBeacon, AltBeacon and Eddystone, aggregates per beacon per window and publishes one \
            SightingsBatch per window (QoS 1) on P/v1/gateways/{gw}/sightings, with a gap-free per-gateway seq. \
            Every batch goes through an on-disk spool first and leaves it on the broker's acknowledgement, so a \
            broker outage or a crash loses nothing within the spool's bound.

            Settings come from --config FILE (`key = value` lines, keys as the long flags), then the \
            environment (BEACONFLEET_AGENT_<KEY>, e.g. BEACONFLEET_AGENT_SPOOL_LIMIT=16MiB), then flags; \
            later wins. --print-config shows the result and where each value came from.

            A replay ends with the capture: the agent flushes its last window, waits (at most --drain-timeout) \
            until every batch is acknowledged, leaves what is not in the spool for the next run, publishes its \
            offline status and exits 0. SIGTERM does the same with the window in progress. An interrupted replay of the same \
            file resumes after its last spooled window (--from-start replays it all again).

            Examples:
              beaconfleet agent --broker mqtt://localhost:1883 --gateway gw-lobby --adapter hci0
              beaconfleet agent --config /etc/beaconfleet/agent.conf
              beaconfleet agent --broker mqtt://localhost:1883 --gateway test --replay ../shared/data/captures/horizon74-ibeacon.btsnoop --speed max --spool /tmp/spool
              beaconfleet agent --broker mqtts://gw:secret@broker.example:8883 --ca-file ca.pem --gateway gw-2 --adapter hci1 --allow-uuid 494E5445-4C4C-495F-524F-434B535F4857 --min-rssi -95
              beaconfleet agent --config agent.conf --print-config
            """
    )

    @Option(name: .long, help: ArgumentHelp("Configuration file (`key = value` lines).", valueName: "FILE"))
    var config: String?

    @Option(
        help: ArgumentHelp("Broker URL: mqtt://[user:pass@]host[:port] or mqtts://… (default mqtt://localhost:1883).", valueName: "URL"))
    var broker: String?

    @Option(help: ArgumentHelp("This gateway's id, [A-Za-z0-9._-]{1,64}.", valueName: "ID"))
    var gateway: String?

    @Option(help: ArgumentHelp("Live Bluetooth adapter to scan with.", valueName: "hciN"))
    var adapter: String?

    @Option(help: ArgumentHelp("Capture to replay instead of scanning (btsnoop, pcap, pcapng).", valueName: "FILE"))
    var replay: String?

    @Option(help: ArgumentHelp("Replay pace: a factor of recorded time (1 = real time), or max (default 1).", valueName: "X|max"))
    var speed: String?

    @Flag(help: "Replay the whole capture even if an earlier run of it was interrupted.")
    var fromStart = false

    @Option(help: ArgumentHelp("Topic prefix (default beaconfleet).", valueName: "PREFIX"))
    var prefix: String?

    @Option(help: ArgumentHelp("Aggregation window, e.g. 1s or 500ms (default 1s).", valueName: "DURATION"))
    var window: String?

    @Option(help: ArgumentHelp("Spool directory, one per agent (default /var/lib/beaconfleet/spool).", valueName: "DIR"))
    var spool: String?

    @Option(help: ArgumentHelp("Spool bound; past it the oldest batches are dropped (default 64MiB).", valueName: "SIZE"))
    var spoolLimit: String?

    @Option(help: ArgumentHelp("fsync every batch: true survives power loss, false only crashes (default true).", valueName: "BOOL"))
    var spoolFsync: String?

    @Option(help: ArgumentHelp("Keep only these iBeacon/AltBeacon UUIDs (comma-separated).", valueName: "UUIDS"))
    var allowUuid: String?

    @Option(
        help: ArgumentHelp("Keep only these formats: ibeacon, altbeacon, eddystone-uid, eddystone-url, eddystone-tlm.", valueName: "LIST"))
    var formats: String?

    @Option(help: ArgumentHelp("Drop advertisements weaker than this, dBm.", valueName: "DBM"))
    var minRssi: String?

    @Option(help: ArgumentHelp("Drop advertisements from these addresses (comma-separated AA:BB:CC:DD:EE:FF).", valueName: "ADDRESSES"))
    var denyAddress: String?

    @Option(help: ArgumentHelp("Live scan type: passive or active (default passive).", valueName: "TYPE"))
    var scan: String?

    @Option(help: ArgumentHelp("LE scan interval (default 100ms).", valueName: "DURATION"))
    var scanInterval: String?

    @Option(help: ArgumentHelp("LE scan window, at most the interval (default 100ms).", valueName: "DURATION"))
    var scanWindow: String?

    @Option(help: ArgumentHelp("MQTT version: 5, 3.1.1, or auto (default: 5, and 3.1.1 when the broker refuses 5).", valueName: "VERSION"))
    var mqttVersion: String?

    @Option(help: ArgumentHelp("CA certificate for mqtts://.", valueName: "FILE"))
    var caFile: String?

    @Option(help: ArgumentHelp("Client certificate for mqtts://.", valueName: "FILE"))
    var certFile: String?

    @Option(help: ArgumentHelp("Client key for mqtts://.", valueName: "FILE"))
    var keyFile: String?

    @Option(help: ArgumentHelp("How often the retained status is refreshed (default 10s).", valueName: "DURATION"))
    var statusInterval: String?

    @Option(help: ArgumentHelp("How long to wait for acknowledgements when stopping (default 10s).", valueName: "DURATION"))
    var drainTimeout: String?

    @Option(help: ArgumentHelp("Batches handed to the broker before waiting for their acknowledgements (default 32).", valueName: "N"))
    var maxInflight: String?

    @Option(help: ArgumentHelp("Log level: trace, debug, info, notice, warning, error (default info).", valueName: "LEVEL"))
    var logLevel: String = "info"

    @Flag(help: "Print the resolved configuration (with where each value came from) and exit.")
    var printConfig = false

    public init() {}

    public func run() async throws {
        let settings: AgentSettings
        let configuration: AgentConfiguration
        do {
            settings = try resolveSettings()
            if printConfig {
                print(settings.rendered(), terminator: "")
            }
            configuration = try AgentConfiguration(settings: settings)
        } catch {
            fail("\(error)", code: 2)
        }
        if printConfig { return }

        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "beaconfleet.agent.\(configuration.gateway)")

        // Open the source first: a gateway without Bluetooth should hear why at once, not after a broker timeout.
        let source: any HCIEventSource
        do {
            switch configuration.source {
            case .adapter(let name):
                source = try HCIAdapterSource(adapter: name, parameters: configuration.scan)
            case .replay(let path, let speed):
                source = try CaptureReplaySource(path: path, speed: speed)
            }
        } catch {
            fail("\(error)", code: 1)
        }

        let client: MQTTClient
        let agent: GatewayAgent
        do {
            var mqtt = try MQTTConfiguration(brokers: configuration.broker, clientID: "beaconfleet-agent-\(configuration.gateway)")
            try mqtt.setVersion(commandLine: configuration.mqttVersion)
            mqtt.will = GatewayAgent.lastWill(configuration: configuration, version: BeaconFleetVersion.current)
            mqtt.tls = MQTTTLSFiles(caFile: configuration.caFile, certificateFile: configuration.certFile, keyFile: configuration.keyFile)
            mqtt.reconnectDelayMin = .milliseconds(250)
            mqtt.reconnectDelayMax = .seconds(10)
            client = try MQTTClient(configuration: mqtt, logger: logger)
            agent = try GatewayAgent(
                configuration: configuration, source: source, client: client, version: BeaconFleetVersion.current, logger: logger)
        } catch {
            source.close()
            fail("\(error)", code: 1)
        }

        do {
            try await agent.runWithClient(handleSignals: true)
        } catch {
            fail("\(error)", code: 1)
        }
    }

    /// Defaults, then the configuration file, then the environment, then the flags given.
    private func resolveSettings() throws -> AgentSettings {
        var settings = AgentSettings()
        let environment = ProcessInfo.processInfo.environment
        if let path = config ?? environment["BEACONFLEET_AGENT_CONFIG"] {
            try settings.apply(file: path)
        }
        try settings.apply(environment: environment)
        let flags: [(String, String?)] = [
            ("broker", broker), ("gateway", gateway), ("adapter", adapter), ("replay", replay), ("speed", speed),
            ("prefix", prefix), ("window", window), ("spool", spool), ("spool-limit", spoolLimit), ("spool-fsync", spoolFsync),
            ("allow-uuid", allowUuid), ("formats", formats), ("min-rssi", minRssi), ("deny-address", denyAddress),
            ("scan", scan), ("scan-interval", scanInterval), ("scan-window", scanWindow),
            ("mqtt-version", mqttVersion), ("ca-file", caFile), ("cert-file", certFile), ("key-file", keyFile),
            ("status-interval", statusInterval), ("drain-timeout", drainTimeout), ("max-inflight", maxInflight),
        ]
        for (key, value) in flags {
            guard let value else { continue }
            try settings.set(key, value, origin: .flag(name: key))
            // A source given as a flag replaces the other kind of source from a file or the environment.
            if key == "adapter" { settings.remove("replay") }
            if key == "replay" { settings.remove("adapter") }
        }
        if adapter != nil, replay != nil {
            throw ConfigurationError.conflict("both --adapter and --replay were given; choose one")
        }
        if fromStart { try settings.set("resume", "false", origin: .flag(name: "from-start")) }
        return settings
    }

    private func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("beaconfleet agent: error: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
