public import Foundation
public import LiveMap
public import Logging
import Planner
import Topology
public import WireProtocol

/// The engine, the state store and the metrics behind one actor: the only place client state
/// changes. The service feeds it batches of messages; HTTP handlers read snapshots from it.
public actor CoordinatorCore {
    let engine: CoordinatorEngine
    let store: StateStore?
    let metrics: CoordinatorMetrics
    var log: RateLimitedLog
    private var exported = IngestCounters()
    private var lastFlush = ContinuousClock.now
    private var topologyError: String?
    private var topologyInfo: CoordinatorStatus.TopologyInfo
    /// The live map's subscribers, fed after each batch while there are any (see ``subscribeMap()``).
    public nonisolated let map: MapBroadcaster
    /// The gateways' online states last sent to the map, and whether a reload is yet to be announced.
    var mapGatewaysOnline: [Bool] = []
    var mapTopologyChanged = false
    /// Clients whose state may have changed since a watcher last took them; `nil` while nobody
    /// watches (see ``watchClientChanges()``).
    var changedClients: Set<String>?
    /// Partitioned coordinators: the ownership that decides what this member applies (`nil`: a lone
    /// coordinator applies everything), and its metrics.
    var partitioning: PartitionOwnership?
    var partitionMetrics: PartitionMetrics?
    /// Partitioned coordinators: reports not applied (their partition not served), for a member gaining it.
    var heldReports = HeldReports()

    /// Makes this core a member of partitioned coordinators (see ``PartitionOwnership``).
    public func partition(by ownership: PartitionOwnership, metrics: PartitionMetrics) {
        partitioning = ownership
        partitionMetrics = metrics
    }

    /// A core on `venue`, resuming the clients in `store`.
    public init(
        venue: CoordinatorVenue, configuration: CoordinatorEngine.Configuration, store: StateStore?, metrics: CoordinatorMetrics,
        logger: Logger, map: MapBroadcaster = MapBroadcaster()
    ) throws {
        self.map = map
        let restored = try store?.loadClients() ?? []
        self.engine = CoordinatorEngine(venue: venue, configuration: configuration, restored: restored)
        self.store = store
        self.metrics = metrics
        self.log = RateLimitedLog(logger: logger)
        self.topologyInfo = .init(name: venue.topology.name, revision: venue.topology.revision)
        Self.restoreCalibration(store, into: engine, logger: logger)
        if !restored.isEmpty { logger.info("resumed \(restored.count) clients from \(store?.path ?? "")") }
    }

    /// Applies `batch`, plans the clients it touched, writes their state and returns what to
    /// publish (already durable).
    ///
    /// Clients touched only by sightings are estimated and planned at most every `flushInterval`
    /// (their evidence accumulates meanwhile); a batch holding a phone's report (or any message
    /// but sightings) plans the phones it touched at once, and only them.
    /// `backlogged`: more sightings wait behind this batch (tags' estimates may be skipped, see
    /// ``CoordinatorEngine/Configuration/tagEstimateInterval``). `now`: milliseconds since 1970.
    public func process(
        _ batch: [InboundMessage], now: Int64 = Milliseconds.now(), flushInterval: Duration = .milliseconds(200), backlogged: Bool = false
    ) -> [CoordinatorOutput] {
        let millis = now
        var urgent = false
        for inbound in batch {
            if let partitioning, !admits(inbound, ownership: partitioning, now: millis) { continue }
            if !urgent, !inbound.isSightings { urgent = true }
            do throws(WireError) {
                try engine.apply(inbound.payload, now: millis)
            } catch {
                log.warning("rejected: \(error)", source: CoordinatorCore.source(of: inbound.topic))
            }
        }
        let clock = ContinuousClock.now
        if urgent {
            // A phone waits for its answer: plan the phones only. Tags due meanwhile go in the
            // next step or the flush loop's (with 10,000 tags moving, planning them all here put
            // 330 ms behind the report, and a chunk of 256 of them 5 ms).
            engine.flush(now: millis, backlogged: backlogged, phonesOnly: true)
        } else if flushPending || clock - lastFlush >= flushInterval {
            lastFlush = clock
            flushPending = engine.flush(now: millis, backlogged: backlogged, limit: Self.flushChunk)
        }
        return commit()
    }

    /// Plans clients whose sightings are waiting, when the flush interval has passed.
    ///
    /// At most ``flushChunk`` tags are decided per call, so a phone's report never waits behind
    /// thousands of them; ``flushPending`` says that more are due (call again at once).
    public func flushIfDue(now: Int64 = Milliseconds.now(), flushInterval: Duration = .milliseconds(200), backlogged: Bool = false)
        -> [CoordinatorOutput]
    {
        guard flushPending || ContinuousClock.now - lastFlush >= flushInterval else { return [] }
        lastFlush = ContinuousClock.now
        flushPending = engine.flush(now: now, backlogged: backlogged, limit: Self.flushChunk)
        return commit()
    }

    /// Tags decided per flush: about 0.4 ms of estimates and plans (6 µs each since the estimator's
    /// fast arithmetic; 20 µs before) on the development machine, the longest a report waits
    /// behind them.
    public static let flushChunk = 64
    /// Whether the last flush left tags that were due for the next call.
    public private(set) var flushPending = false

    /// Expires idle clients; returns the clears to publish.
    public func housekeeping(now: Int64 = Milliseconds.now()) -> [CoordinatorOutput] {
        engine.expireIdle(now: now)
        calibrateIfDue(now: now)
        return commit()
    }

    /// Before the coordinator stops (SIGTERM): plans the clients whose sightings wait for the flush
    /// interval and writes every client whose `lastSeen` the store has not caught up with (it is
    /// written at most every ``CoordinatorEngine/Configuration/lastSeenPersistInterval`` while
    /// running), so a restart resumes them as they were and does not expire them early. Returns
    /// what to publish.
    public func drain(now: Int64 = Milliseconds.now()) -> [CoordinatorOutput] {
        engine.flush(now: now)
        engine.persistUnsaved()
        return commit()
    }

    /// Swaps in a new topology with its planner and estimator; every client is re-planned.
    public func reload(_ venue: CoordinatorVenue, now: Int64 = Milliseconds.now()) -> [CoordinatorOutput] {
        engine.replaceVenue(venue, now: now)
        topologyInfo = .init(name: venue.topology.name, revision: venue.topology.revision)
        topologyError = nil
        mapTopologyChanged = true
        return commit()
    }

    /// Records a failed reload (the old topology stays).
    public func reloadFailed(_ error: String) {
        topologyError = error
    }

    private func commit() -> [CoordinatorOutput] {
        let decided = engine.take()
        let (outputs, changed, removed, touched) = (decided.outputs, decided.changed, decided.removed, decided.touched)
        // What the watchers (the live map, Home Assistant) are told changed; nothing is noted
        // while neither watches.
        if changedClients != nil { noteChanges(touched, outputs, changed, removed) }
        if let store, !changed.isEmpty || !removed.isEmpty {
            do {
                try store.save(changed, removing: removed)
            } catch {
                // Durable state is what lets versions continue after a crash: say so loudly, keep serving.
                log.warning("\(error)", source: "state-store")
            }
        }
        if engine.tracksTouched {
            if map.hasSubscribers { feedMap(touched: touched, removed: removed) }
            engine.tracksTouched = map.hasSubscribers || changedClients != nil
        }
        metrics.record(engine.counters, since: exported)
        if engine.counters.sightings > exported.sightings { metrics.lastSightings.set(Date().timeIntervalSince1970) }
        exported = engine.counters
        metrics.clients.set(Double(engine.clientCount))
        metrics.unwakeablePhones.set(Double(engine.unwakeablePhones))
        return outputs
    }

    /// The coordinator's status message.
    public func status(started: Date, version: String) -> CoordinatorStatus {
        CoordinatorStatus(
            state: .online, topology: topologyInfo, clients: engine.clientCount, version: version, started: started, time: Date(),
            error: topologyError)
    }

    /// A client as `/api/clients/{id}` shows it.
    public func client(_ id: String) -> ClientSnapshot? { engine.snapshot(of: id) }

    /// The running totals.
    public var counters: IngestCounters { engine.counters }

    /// Clients known.
    public var clientCount: Int { engine.clientCount }

    /// The gateway or client id in a topic, to rate-limit logs per source.
    static func source(of topic: String) -> String {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count >= 5, parts[parts.count - 4] == "v1" || parts.count > 5 { return String(parts[parts.count - 2].prefix(64)) }
        return String(topic.prefix(64))
    }
}
