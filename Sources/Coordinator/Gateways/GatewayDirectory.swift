public import Foundation
public import Logging
public import MQTT
public import ServiceLifecycle
import Synchronization
import Topology
public import WireProtocol

/// The venue's gateways, from the coordinator's side: it configures each gateway's agent and keeps
/// what each last said about itself.
///
/// - **Configures**: one retained ``GatewayConfiguration`` (QoS 1) per gateway of the topology on
///   `P/v1/gateways/{gw}/config` (``GatewayConfiguration/plan(for:in:)``), published once connected,
///   after every reconnection and whenever the topology's revision changes; a gateway removed from
///   the topology has its configuration cleared (an empty retained message). An agent applies it
///   while running; one that is offline reads it, retained, when it comes back.
/// - **Listens** to every gateway's retained status (its own subscription on the coordinator's
///   connection, apart from the engine's ingest): its state, software version and the configuration
///   revision it runs, for `/api/gateways` and the live map (``gateways()``).
///
/// Run it after the coordinator's ``MQTTClient`` in the coordinator's `ServiceGroup`.
public final class GatewayDirectory: Service, Sendable {
    public let topics: Topics
    public let core: CoordinatorCore
    public let client: MQTTClient
    private let logger: Logger
    private let state = Mutex(State())
    /// Set by a reconnection: every configuration again (a restarted broker may have lost them).
    private let republish = Atomic<Bool>(false)

    private struct State {
        var statuses: [String: (status: GatewayStatus, received: Date)] = [:]
        var published: [String: GatewayConfiguration] = [:]
    }

    public init(topics: Topics, core: CoordinatorCore, client: MQTTClient, logger: Logger) {
        self.topics = topics
        self.core = core
        self.client = client
        self.logger = logger
    }

    /// How often the topology's revision is checked.
    static let tick = Duration.milliseconds(500)

    public func run() async throws {
        let topics = self.topics
        let registration = client.handleMessages { [self] message in
            guard case .gatewayStatus(let gateway)? = try? topics.route(message.topic) else { return }
            self.state.withLock { state in
                if message.payload.isEmpty {
                    state.statuses[gateway.rawValue] = nil
                } else if let status = try? WireCoding.decode(GatewayStatus.self, from: message.payload, topic: message.topic) {
                    state.statuses[gateway.rawValue] = (status, Date())
                }
            }
        }
        defer { registration.cancel() }
        var revision: String?
        await client.runRepublishing(
            subscribingTo: topics.allGatewayStatus, logger: logger, unsubscribed: "/api/gateways shows no agent's status",
            reconnected: { [self] in republish.store(true, ordering: .relaxed) }, every: GatewayDirectory.tick
        ) {
            let topology = await core.topology
            if revision != topology.revision || republish.exchange(false, ordering: .relaxed) {
                publish(topology)
                revision = topology.revision
            }
        }
    }

    /// Every gateway's configuration for `topology`, retained; those no longer in it cleared.
    private func publish(_ topology: Topology) {
        let now = Date()
        var configurations: [String: GatewayConfiguration] = [:]
        for gateway in topology.gateways {
            var configuration = GatewayConfiguration.plan(for: gateway, in: topology)
            configuration.time = now
            configurations[gateway.id] = configuration
        }
        let gone = state.withLock { state in
            let gone = Set(state.published.keys).subtracting(configurations.keys)
            state.published = configurations
            return gone
        }
        for id in gone {
            guard let gateway = try? Identifier(id) else { continue }
            send(topics.gatewayConfig(gateway), [])
        }
        for (id, configuration) in configurations.sorted(by: { $0.key < $1.key }) {
            guard let gateway = try? Identifier(id), let payload = try? WireCoding.encode(configuration) else { continue }
            send(topics.gatewayConfig(gateway), payload)
        }
        logger.info(
            "gateway configurations published",
            metadata: ["gateways": "\(configurations.count)", "topology": "\(topology.revision.prefix(8))"])
    }

    private func send(_ topic: String, _ payload: [UInt8]) {
        do {
            try client.enqueue(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
        } catch {
            logger.warning("cannot publish on \(topic): \(error)")
        }
    }

    /// Each gateway of the topology, and each other gateway that sent a status, by id.
    public func gateways() -> [GatewayHealth] {
        state.withLock { state in
            let ids = Set(state.published.keys).union(state.statuses.keys)
            return ids.sorted().map { id in
                let entry = state.statuses[id]
                let status = entry?.status
                let expected = state.published[id]?.revision
                let running = status?.state == .online ? status?.configuration?.revision : nil
                return GatewayHealth(
                    id: id, inTopology: state.published[id] != nil, state: status?.state.rawValue ?? "unknown", version: status?.version,
                    adapter: status?.adapter, started: status?.started, lastStatus: status?.time ?? entry?.received,
                    broker: status?.counters?.broker, reportsPerSecond: status?.counters?.reportsPerSecond,
                    spooled: status?.counters?.spooled, dropped: status?.counters?.dropped, revision: running, expectedRevision: expected,
                    configured: expected != nil && running == expected, overridden: status?.configuration?.overridden)
            }
        }
    }
}

/// One gateway as `/api/gateways` and the live map show it.
public struct GatewayHealth: Codable, Sendable, Equatable {
    public var id: String
    /// Whether `gateways.csv` lists it (a gateway heard of but not listed is shown too).
    public var inTopology: Bool
    /// `online`, `offline` (its status, or its last will), or `unknown` (no status yet).
    public var state: String
    /// The agent's software version.
    public var version: String?
    public var adapter: String?
    public var started: Date?
    /// When its last status was written.
    public var lastStatus: Date?
    /// Its broker connection, reports per second, batches spooled and dropped, by its last status.
    public var broker: String?
    public var reportsPerSecond: Double?
    public var spooled: UInt64?
    public var dropped: UInt64?
    /// The configuration revision the agent runs (while online), and the one published for it.
    public var revision: String?
    public var expectedRevision: String?
    /// Whether it runs the configuration published for it.
    public var configured: Bool
    /// What of it the agent's own settings override.
    public var overridden: [String]?
}
