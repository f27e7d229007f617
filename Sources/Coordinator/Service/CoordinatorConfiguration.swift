public import Foundation
public import HomeAssistant
public import MQTT
public import WireProtocol

/// Everything `beaconfleet coordinator` is configured with.
public struct CoordinatorConfiguration: Sendable {
    /// The broker to connect to (credentials and TLS files included).
    public var mqtt: MQTTConfiguration
    /// The venue directory.
    public var topologyDirectory: URL
    /// The SQLite state file; `nil` keeps state in memory (lost on restart).
    public var statePath: String?
    /// Where `/healthz`, `/metrics` and `/api/clients/{id}` are served; `nil` for no HTTP.
    public var http: (host: String, port: Int)?
    /// The bearer token the map and `/api/…` require (`nil`: open; see ``HTTPAccessToken``).
    public var httpToken: HTTPAccessToken?
    /// Topic prefix.
    public var topics: Topics
    /// The engine's tunables (budget, absence windows, idle timeout, …).
    public var engine: CoordinatorEngine.Configuration
    /// The planner (`--planner`): ``PlannerChoice/frontier`` for phones iOS wakes, or the nearest-N baseline.
    public var planner: PlannerChoice = .frontier
    /// Sightings batches that may wait before the oldest are shed.
    public var sightingsQueueLimit: Int = 10_000
    /// How often the topology files are checked for changes (SIGHUP reloads at once); zero: never
    /// (reload on SIGHUP only).
    public var topologyPollInterval: Duration = .seconds(2)
    /// How often idle clients are expired and the status refreshed.
    public var housekeepingInterval: Duration = .seconds(5)
    /// Home Assistant MQTT discovery (`--home-assistant`); `nil`: off. See ``HomeAssistantBridge``.
    public var homeAssistant: HomeAssistantConfiguration?
    /// Membership of partitioned coordinators (`--partitioned`); `nil`: this coordinator serves the
    /// whole venue alone. Set with ``partition(_:)``, which also moves the will.
    public internal(set) var partitions: PartitionConfiguration?

    /// A configuration for `broker`, with the coordinator's last will (`offline`, retained) set;
    /// with a `clientID`, a persistent session the broker keeps across restarts.
    public init(
        broker: BrokerURL, topologyDirectory: URL, statePath: String? = nil, http: (host: String, port: Int)? = nil,
        topics: Topics, engine: CoordinatorEngine.Configuration = .init(), clientID: String? = nil
    ) throws {
        var mqtt = MQTTConfiguration(url: broker, clientID: clientID ?? MQTTConfiguration.randomClientID(prefix: "beaconfleet-coordinator"))
        // A named coordinator keeps a persistent session: while it is down or reconnecting the broker
        // queues the reports and sightings (QoS 1) it subscribed to, and a restart under the same id
        // receives them. A random id has no one to resume it, so its session is clean.
        mqtt.cleanSession = clientID == nil
        mqtt.will = LastWill(
            topic: topics.coordinatorStatus, payload: try WireCoding.encode(CoordinatorStatus(state: .offline)), qos: .atLeastOnce,
            retain: true)
        mqtt.maxQueued = 200_000
        mqtt.maxInflight = 1_000
        mqtt.receiveMaximum = 10_000
        // This connection brings every gateway's sightings: on a core it shares with the processing
        // thread, a standard network thread woke ~2.4 times per 210 KB batch and preempted the
        // processing each time (docs/coordinator.md, `e2e-pinned`).
        mqtt.networkThreadScheduling = .batch
        self.mqtt = mqtt
        self.topologyDirectory = topologyDirectory
        self.statePath = statePath
        self.http = http
        self.topics = topics
        self.engine = engine
    }
}
