import Synchronization

/// Fans the clients' marker changes out to the live map's subscribers (`GET /api/stream`).
///
/// The ``CoordinatorCore`` hands it what changed after each batch it applied, on its own actor,
/// and only while someone is subscribed (``hasSubscribers``): with nobody watching the engine
/// does not even note what changed. Each subscriber has its own bounded buffer
/// (``MapSubscription``), so a slow browser costs memory up to its cap and never slows the core.
public final class MapBroadcaster: Sendable {
    /// Bounds of every subscriber's stream.
    public struct Configuration: Sendable {
        /// Clients with an update waiting, per subscriber; beyond it the oldest waiting is dropped.
        public var bufferLimit: Int = 20_000
        /// At most one update per client per this interval, per subscriber (newer ones replace a
        /// waiting one: the subscriber sees the newest).
        public var minimumInterval: Duration = .milliseconds(500)
        /// How often a subscriber's stream sends what is due.
        public var tick: Duration = .milliseconds(100)

        public init(bufferLimit: Int = 20_000, minimumInterval: Duration = .milliseconds(500), tick: Duration = .milliseconds(100)) {
            self.bufferLimit = bufferLimit
            self.minimumInterval = minimumInterval
            self.tick = tick
        }
    }

    public let configuration: Configuration
    private let subscriptions = Mutex<[Int: MapSubscription]>([:])
    private let nextID = Atomic<Int>(0)
    private let count = Atomic<Int>(0)

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Whether anyone is subscribed (cheap: read on every batch the core applies).
    public var hasSubscribers: Bool { count.load(ordering: .relaxed) > 0 }

    /// Subscribers now.
    public var subscriberCount: Int { count.load(ordering: .relaxed) }

    /// A new subscription; it receives everything published from now on until cancelled.
    public func subscribe() -> MapSubscription {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let subscription = MapSubscription(id: id, configuration: configuration, broadcaster: self)
        subscriptions.withLock { $0[id] = subscription }
        count.add(1, ordering: .relaxed)
        return subscription
    }

    func remove(_ id: Int) {
        let removed = subscriptions.withLock { $0.removeValue(forKey: id) }
        if removed != nil { count.subtract(1, ordering: .relaxed) }
    }

    /// Offers changes to every subscriber: changed `clients`, `removed` client ids, the gateways
    /// when their state changed, and whether the topology was reloaded.
    public func publish(
        clients: [ClientMarker], removed: [String] = [], gateways: [GatewayMarker]? = nil, topologyChanged: Bool = false
    ) {
        guard hasSubscribers, !clients.isEmpty || !removed.isEmpty || gateways != nil || topologyChanged else { return }
        let all = subscriptions.withLock { Array($0.values) }
        for subscription in all {
            subscription.offer(clients: clients, removed: removed, gateways: gateways, topologyChanged: topologyChanged)
        }
    }
}
