import BeaconKit
import Foundation
public import Logging
public import MQTT
public import ServiceLifecycle
import Synchronization
import Topology
public import WireProtocol

/// Announces the coordinator's clients and gateways to Home Assistant by MQTT discovery and keeps
/// their states (``HomeAssistantConfiguration``, docs/home-assistant.md):
///
/// - per client (phone or tag) one retained device-based discovery config on
///   `<prefix>/device/<object id>/config`: a `device_tracker` and a distance `sensor`, available
///   while the coordinator's retained status says `online` (its last will says `offline`), named
///   by `clients.csv`'s `name` where it names the client (``ClientPolicy/name(of:)``);
/// - per client its place on `<prefix>/device/<object id>/location` (the name itself, which the
///   tracker takes as its state) and its attributes on `…/attributes` (JSON), both retained
///   (``HomeAssistantClientState``), at most once per ``HomeAssistantConfiguration/stateInterval``
///   and only when they changed;
/// - the coordinator's own device (its status and client count), and per gateway of the topology
///   one config with a connectivity `binary_sensor` on the gateway's own status topic;
/// - every config again when Home Assistant announces `online` on `<prefix>/status`, or when the
///   bridge reconnects;
/// - an expired (or merged) client's config and state cleared with empty retained payloads.
///
/// It watches its ``HomeAssistantClientSource`` (the coordinator's core) for changed clients and
/// reads their snapshots a batch at a time, at its own pace, off the path from a report to its
/// `regions`; it publishes over its own connection (``connection(for:)``), so its messages never
/// queue before the phones'. Run it after that client in the coordinator's `ServiceGroup`.
public final class HomeAssistantBridge: Service, Sendable {
    public let configuration: HomeAssistantConfiguration
    public let topics: HomeAssistantTopics
    /// Where the clients are read (the coordinator's core).
    public let source: any HomeAssistantClientSource
    public let client: MQTTClient
    private let logger: Logger
    /// Set when Home Assistant announced itself (or the connection came back): everything again.
    private let republish = Atomic<Bool>(false)

    public init(
        configuration: HomeAssistantConfiguration, topics: Topics, source: any HomeAssistantClientSource, client: MQTTClient,
        logger: Logger
    ) {
        self.configuration = configuration
        self.topics = HomeAssistantTopics(prefix: configuration.prefix, topics: topics)
        self.source = source
        self.client = client
        self.logger = logger
    }

    /// The bridge's own connection: the coordinator's broker, credentials and TLS files, under
    /// its own client id, a clean session and no last will (availability is the coordinator's).
    public static func connection(for coordinator: MQTTConfiguration) -> MQTTConfiguration {
        var configuration = coordinator
        configuration.clientID = String((coordinator.clientID + "-home-assistant").prefix(128))
        configuration.cleanSession = true
        configuration.will = nil
        return configuration
    }

    /// How often the bridge takes changes and publishes.
    static let tick = Duration.milliseconds(250)
    /// Clients read from the core per call, so that the core is never held long (a phone's report
    /// waits at most for one such call).
    static let snapshotBatch = 64

    public func run() async throws {
        await source.watchClientChanges()
        let statusTopic = topics.status
        let registration = client.handleMessages { [self] message in
            if message.topic == statusTopic, message.payloadString == "online" { republish.store(true, ordering: .relaxed) }
        }
        defer { registration.cancel() }
        var state = PublishedState(configuration: configuration)
        await client.runRepublishing(
            subscribingTo: statusTopic, logger: logger, unsubscribed: "configs are not re-sent when Home Assistant restarts",
            reconnected: { [self] in republish.store(true, ordering: .relaxed) }, every: HomeAssistantBridge.tick
        ) {
            await step(&state)
        }
    }

    /// What the bridge has published, and who waits.
    struct PublishedState {
        var pacer: HomeAssistantPacer
        /// Per client: the kind and name its config was published for (`nil`: none yet), and its
        /// location and attributes payloads as last published.
        var clients: [String: PublishedClient] = [:]
        /// Gateways announced, and the topology revision they come from.
        var gateways: Set<String> = []
        var places: HomeAssistantPlaces?
        let encoder: JSONEncoder

        init(configuration: HomeAssistantConfiguration) {
            pacer = HomeAssistantPacer(interval: configuration.stateInterval)
            encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        }
    }

    /// What was last published for one client.
    struct PublishedClient {
        var config: (kind: String, name: String)?
        var location: [UInt8] = []
        var attributes: [UInt8] = []
    }

    /// One round: the topology's gateways, a re-announcement if asked, then the changed clients
    /// that are due, within the message budget.
    func step(_ state: inout PublishedState) async {
        let origin = HomeAssistantDiscovery.Origin(url: configuration.originURL)
        let topology = await source.topology
        let again = republish.exchange(false, ordering: .relaxed)
        if state.places?.topology.revision != topology.revision || again {
            let places = HomeAssistantPlaces(topology: topology)
            let revised = state.places != nil
            state.places = places
            announceCoordinator(topology, origin: origin)
            announceGateways(topology, origin: origin, into: &state)
            // Where a client is (and what it is called) depends on the venue: every state again.
            if revised || again { state.pacer.add(state.clients.keys) }
            if again { state.clients = state.clients.mapValues { _ in PublishedClient() } }
        }
        guard let places = state.places else { return }
        state.pacer.add(await source.takeChangedClients())
        // Messages per round; a client costs at most four (its config, the legacy state cleared,
        // location and attributes) but mostly two, so a batch is taken only while that many remain.
        let budget = max(4, Int(Double(configuration.messagesPerSecond) * (HomeAssistantBridge.tick / .seconds(1))))
        var sent = 0
        while sent + 4 <= budget {
            let batch = state.pacer.take(upTo: min(HomeAssistantBridge.snapshotBatch, (budget - sent) / 4), now: .now)
            if batch.isEmpty { break }
            let snapshots = await source.placements(batch)
            for (id, snapshot) in zip(batch, snapshots) {
                if let snapshot {
                    sent += publish(snapshot, places: places, origin: origin, into: &state)
                } else {
                    sent += clear(id, into: &state)
                }
            }
        }
    }

    /// The config (when new, or its kind or name changed: a tag became a phone, `clients.csv`
    /// renamed it), and the location and attributes (each when changed) of a client; returns the
    /// messages sent.
    private func publish(
        _ snapshot: ClientSnapshot, places: HomeAssistantPlaces, origin: HomeAssistantDiscovery.Origin, into state: inout PublishedState
    ) -> Int {
        let object = topics.clientObjectID(snapshot.id)
        let shown = HomeAssistantClientState(snapshot, places: places)
        let location = Array(shown.location.utf8)
        let attributes = (try? Array(state.encoder.encode(shown.attributes))) ?? []
        let name = Self.name(of: snapshot, topology: places.topology)
        var published = state.clients[snapshot.id] ?? PublishedClient()
        var sent = 0
        if published.config?.kind != snapshot.kind || published.config?.name != name {
            let config = HomeAssistantDiscovery.client(
                snapshot.id, name: name, kind: snapshot.kind, topics: topics, origin: origin, mapURL: configuration.mapURL
            ).encoded()
            if published.config == nil {
                send(topics.legacyState(object), [])
                sent += 1
            }
            if send(topics.config(object), config) {
                published.config = (snapshot.kind, name)
                sent += 1
            }
        }
        if published.location != location, send(topics.location(object), location) {
            published.location = location
            sent += 1
        }
        if published.attributes != attributes, send(topics.attributes(object), attributes) {
            published.attributes = attributes
            sent += 1
        }
        state.clients[snapshot.id] = published
        // Not sent (the queue was full): again in the next interval.
        if published.config?.kind != snapshot.kind || published.config?.name != name || published.location != location
            || published.attributes != attributes
        {
            state.pacer.add([snapshot.id])
        }
        return sent
    }

    /// The device name of a client: a phone's id; a tag's name from `clients.csv` (``ClientPolicy/name(of:)``),
    /// else `Tag` and the part of its id that tells tags apart (`Tag 1000.7`), its whole id being the device's serial number.
    static func name(of snapshot: ClientSnapshot, topology: Topology) -> String {
        guard snapshot.kind != "phone", let identity = BeaconIdentity(clientIdentifier: snapshot.id) else { return snapshot.id }
        if let name = topology.clientPolicy?.name(of: identity) { return name }
        switch identity.kind {
        case .uuidMajorMinor: return "Tag \(identity.major).\(identity.minor)"
        case .eddystoneUID: return "Tag \(identity.instanceHex)"
        case .address: return "Tag \(identity.address)"
        }
    }

    /// An expired client: its config, location and attributes removed (empty retained payloads),
    /// also when this bridge never announced it (an earlier run may have).
    private func clear(_ id: String, into state: inout PublishedState) -> Int {
        let object = topics.clientObjectID(id)
        send(topics.config(object), [])
        send(topics.location(object), [])
        send(topics.attributes(object), [])
        send(topics.legacyState(object), [])
        state.clients[id] = nil
        state.pacer.forget(id)
        return 4
    }

    /// The coordinator's own device.
    private func announceCoordinator(_ topology: Topology, origin: HomeAssistantDiscovery.Origin) {
        let venue = topology.name.isEmpty ? topics.topics.prefix : topology.name
        send(
            topics.config(topics.coordinatorObjectID),
            HomeAssistantDiscovery.coordinator(venue: venue, topics: topics, origin: origin, mapURL: configuration.mapURL).encoded())
    }

    /// Every gateway of `topology` announced; those no longer in it removed.
    private func announceGateways(_ topology: Topology, origin: HomeAssistantDiscovery.Origin, into state: inout PublishedState) {
        let ids = Set(topology.gateways.map(\.id))
        for gone in state.gateways.subtracting(ids) { send(topics.config(topics.gatewayObjectID(gone)), []) }
        for id in topology.gateways.map(\.id) {
            send(
                topics.config(topics.gatewayObjectID(id)),
                HomeAssistantDiscovery.gateway(id, topics: topics, origin: origin, mapURL: configuration.mapURL).encoded())
        }
        state.gateways = ids
    }

    /// Queues a retained QoS 1 message; whether it was queued (when not, the error is logged).
    @discardableResult
    private func send(_ topic: String, _ payload: [UInt8]) -> Bool {
        do {
            try client.enqueue(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
            return true
        } catch {
            logger.warning("cannot publish on \(topic): \(error)")
            return false
        }
    }
}
