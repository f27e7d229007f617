import Synchronization

/// One subscriber's bounded, per-client rate-limited buffer of map changes.
///
/// Updates wait keyed by client: a newer one replaces the waiting one (coalescing to the newest);
/// a client is sent at most once per ``MapBroadcaster/Configuration/minimumInterval``; when more
/// than ``MapBroadcaster/Configuration/bufferLimit`` clients wait, the one waiting longest is
/// dropped (and counted). A removal is sent as soon as the stream next ticks.
public final class MapSubscription: Sendable {
    /// What is due for the stream now.
    public struct Batch: Sendable, Equatable {
        public var clients: [ClientMarker] = []
        public var removed: [String] = []
        public var gateways: [GatewayMarker]?
        public var topologyChanged = false
        /// Updates dropped since the last batch (the buffer was full).
        public var dropped = 0

        public var isEmpty: Bool { clients.isEmpty && removed.isEmpty && gateways == nil && !topologyChanged && dropped == 0 }
    }

    private enum Waiting: Sendable {
        case marker(ClientMarker)
        case removed
    }

    private struct State: Sendable {
        var waiting: [String: Waiting] = [:]
        /// Ids in `waiting`, oldest first, from `head` on.
        var order: [String] = []
        var head = 0
        var lastSent: [String: ContinuousClock.Instant] = [:]
        var gateways: [GatewayMarker]?
        var topologyChanged = false
        var dropped = 0
    }

    let id: Int
    private let configuration: MapBroadcaster.Configuration
    private let broadcaster: MapBroadcaster
    private let state = Mutex(State())

    init(id: Int, configuration: MapBroadcaster.Configuration, broadcaster: MapBroadcaster) {
        self.id = id
        self.configuration = configuration
        self.broadcaster = broadcaster
    }

    /// Stops receiving (the stream ended).
    public func cancel() {
        broadcaster.remove(id)
    }

    func offer(clients: [ClientMarker], removed: [String], gateways: [GatewayMarker]?, topologyChanged: Bool) {
        let limit = max(1, configuration.bufferLimit)
        state.withLock { state in
            func wait(_ id: String, _ entry: Waiting) {
                if state.waiting.updateValue(entry, forKey: id) != nil { return }  // coalesced into the waiting one
                state.order.append(id)
                while state.waiting.count > limit, state.head < state.order.count {
                    let oldest = state.order[state.head]
                    state.head += 1
                    if state.waiting.removeValue(forKey: oldest) != nil { state.dropped += 1 }
                }
            }
            for marker in clients { wait(marker.id, .marker(marker)) }
            for id in removed { wait(id, .removed) }
            if let gateways { state.gateways = gateways }
            if topologyChanged { state.topologyChanged = true }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// Takes what is due at `now`: removals, and each waiting client whose last update went out
    /// at least the minimum interval ago. The rest keeps waiting, in its order.
    public func take(now: ContinuousClock.Instant = .now) -> Batch {
        let interval = configuration.minimumInterval
        return state.withLock { state in
            var batch = Batch(gateways: state.gateways, topologyChanged: state.topologyChanged, dropped: state.dropped)
            state.gateways = nil
            state.topologyChanged = false
            state.dropped = 0
            guard !state.waiting.isEmpty else {
                state.order.removeAll(keepingCapacity: true)
                state.head = 0
                return batch
            }
            var kept: [String] = []
            for id in state.order[state.head...] {
                guard let entry = state.waiting[id] else { continue }
                switch entry {
                case .removed:
                    state.waiting[id] = nil
                    state.lastSent[id] = nil
                    batch.removed.append(id)
                case .marker(let marker):
                    if let last = state.lastSent[id], now - last < interval {
                        kept.append(id)
                    } else {
                        state.waiting[id] = nil
                        state.lastSent[id] = now
                        batch.clients.append(marker)
                    }
                }
            }
            state.order = kept
            state.head = 0
            return batch
        }
    }
}
