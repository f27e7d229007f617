import Etcd
import Foundation
public import Logging
public import MQTT
import Planner
public import ServiceLifecycle
import Synchronization
import Topology
import UnixSignals
import WireProtocol

/// Why the coordinator could not start.
public struct CoordinatorError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The coordinator as a `Service`: subscribes to sightings, gateways' status and phones' reports,
/// feeds them through a bounded ``IngestQueue`` into the ``CoordinatorCore``, publishes the
/// decisions, keeps the retained status, expires idle clients and reloads the topology on
/// SIGHUP or when its files change.
///
/// ``CoordinatorApplication`` runs it under a `ServiceGroup` after the ``MQTT/MQTTClient`` it is
/// given (which carries the will from ``CoordinatorConfiguration``), and before the HTTP server.
public final class CoordinatorService: Service, Sendable {
    public let configuration: CoordinatorConfiguration
    public let client: MQTTClient
    public let core: CoordinatorCore
    public let metrics: CoordinatorMetrics
    public let queue: IngestQueue
    let logger: Logger
    private let started = Date()
    private let topologyStamp: TopologyStamp
    /// Whether the subscriptions went through (a shutdown before that closes the client at once).
    private let subscribed = Mutex(false)

    /// Whether the broker acknowledged every subscription: from then on a message for this
    /// coordinator is delivered or, with a persistent session, kept for it while it is away.
    public var isSubscribed: Bool { subscribed.withLock { $0 } }
    /// Partitioned coordinators: the `regions` topics whose last set went out without a live copy
    /// (``enqueueLiveCopy(topic:payload:)``).
    let liveCopyGaps = Mutex<Set<String>>([])
    /// Partitioned coordinators (``CoordinatorConfiguration/partitions``): who owns what; `nil` alone.
    public let ownership: PartitionOwnership?
    let partitionMetrics: PartitionMetrics?
    /// Partitioned coordinators: membership and ownership in etcd.
    let coordination: EtcdElection<PartitionOwnership>?
    /// Partitioned coordinators: the connection live copies and relayed reports go out on (``liveConnection(for:)``).
    let liveClient: MQTTClient?
    /// Partitioned coordinators: the connection QoS 1 and retained messages go out on
    /// (``outboundConnection(for:)``), so that a publish the broker holds up cannot cost the
    /// subscriptions their connection.
    let outboundClient: MQTTClient?
    /// Where `regions`, `events` and statuses are published: ``outboundClient`` when partitioned, else ``client``.
    var publisher: MQTTClient { outboundClient ?? client }
    /// The newest `regions` version enqueued per client: sets go out in increasing order (``PublishedVersions``).
    let publishedVersions = PublishedVersions()
    /// Reports received again, dropped before the queue (``RepeatedReports``).
    let repeatedReports = RepeatedReports()

    /// Loads the topology (an error here is fatal: it names the file and line) and the state store.
    public init(
        configuration: CoordinatorConfiguration, client: MQTTClient, metrics: CoordinatorMetrics = CoordinatorMetrics(), logger: Logger
    ) throws {
        self.configuration = configuration
        self.client = client
        self.metrics = metrics
        self.logger = logger
        self.queue = IngestQueue(sightingsLimit: configuration.sightingsQueueLimit)
        let venue = try CoordinatorService.load(configuration)
        if let partitions = configuration.partitions {
            let ownership: PartitionOwnership
            do {
                ownership = PartitionOwnership(
                    configuration: partitions, map: try PartitionMap(topology: venue.topology, spec: partitions.spec))
            } catch {
                throw CoordinatorError("\(error)")
            }
            self.ownership = ownership
            self.partitionMetrics = PartitionMetrics(registry: metrics.registry)
            self.coordination = EtcdElection(
                configuration: partitions.election(map: ownership.map, topicPrefix: configuration.topics.prefix),
                endpoints: partitions.coordination, state: ownership, logger: logger)
            self.liveClient = try MQTTClient(configuration: Self.liveConnection(for: client.configuration), logger: logger)
            self.outboundClient = try MQTTClient(configuration: Self.outboundConnection(for: client.configuration), logger: logger)
        } else {
            self.ownership = nil
            self.partitionMetrics = nil
            self.coordination = nil
            self.liveClient = nil
            self.outboundClient = nil
        }
        let store = try configuration.statePath.map { path throws(StateStoreError) in try StateStore(path: path) }
        self.core = try CoordinatorCore(
            venue: venue, configuration: configuration.engine,
            store: store, metrics: metrics, logger: logger)
        self.topologyStamp = TopologyStamp(directory: configuration.topologyDirectory)
    }

    /// Loads and validates the venue, and builds its planner and estimator.
    static func load(_ configuration: CoordinatorConfiguration) throws -> CoordinatorVenue {
        let topology: Topology
        do {
            topology = try Topology.load(directory: configuration.topologyDirectory, budget: configuration.engine.budget)
        } catch {
            throw CoordinatorError("topology \(configuration.topologyDirectory.path) is invalid:\n\(error)")
        }
        do {
            return try CoordinatorVenue(topology: topology, budget: configuration.engine.budget, planner: configuration.planner)
        } catch {
            throw CoordinatorError("topology \(configuration.topologyDirectory.path): cannot build the position estimator: \(error)")
        }
    }

    public func run() async throws {
        let topics = configuration.topics
        if let ownership, let partitionMetrics { await core.partition(by: ownership, metrics: partitionMetrics) }
        try liveClient?.connect()
        try outboundClient?.connect()
        // Receive: classify and queue on the client's network thread, nothing else, so nothing
        // waits between the socket and the queue (under overload the queue sheds the oldest
        // sightings and never a report) and no task is woken per message. A sightings batch's
        // JSON is taken from libmosquitto as it is, not copied (``MQTT/MQTTPayload``).
        let receiving = client.handleReceived { [queue, self] received in
            if received.topic.hasSuffix("/sightings") {
                queue.push(QueuedMessage(topic: received.topic, bytes: received.takePayload()), isSightings: true)
                return
            }
            let topic = received.topic
            // Sightings and reports are this service's alone, so taken without a copy. Statuses are
            // read by other handlers on this client too (the GatewayDirectory's), in no set order:
            // copied, so that none of them finds the payload taken.
            guard topic.hasSuffix("/report") else {
                queue.push(QueuedMessage(topic: topic, bytes: MQTTPayload(copying: received.payload)), isSightings: false)
                return
            }
            if self.repeatedReports.isRepeat(topic: topic, payload: Array(received.payload)) {
                self.metrics.repeatedReports.increment()
                return
            }
            queue.push(QueuedMessage(topic: topic, bytes: received.takePayload()), isSightings: false)
        }
        // The MQTT client shuts down after this service: stop listening when this service ends.
        defer { receiving.cancel() }
        try await withGracefulShutdownHandler {
            // Cancelled (another service of the group failed): end the process loop too.
            try await withTaskCancellationHandler {
                try await withThrowingDiscardingTaskGroup { group in
                    // Apply and publish.
                    group.addTask { [self] in await self.processLoop() }
                    // Subscribe and announce, once connected. A subscription waits for the broker
                    // however long it takes; waiting for the connection ends at SIGTERM instead, so a
                    // coordinator whose broker is unreachable still stops.
                    for await state in client.connectionStates.cancelOnGracefulShutdown() {
                        if case .connected = state { break }
                    }
                    if Task.isShuttingDownGracefully || Task.isCancelled { return }
                    do {
                        let filters =
                            ownership == nil ? [topics.allGatewayStatus, topics.allSightings, topics.allClientReports] : memberFilters()
                        // A member's subscriptions are all QoS 0 (memberQoS); a lone coordinator's QoS 1.
                        for filter in filters { try await client.subscribe(filter, qos: ownership != nil ? Self.memberQoS : .atLeastOnce) }
                        self.subscribed.withLock { $0 = true }
                        coordination?.setAvailable(true)
                    } catch {
                        // Stopped before the broker was ever reached (see onGracefulShutdown): a clean end.
                        if case MQTTError.closed = error, Task.isShuttingDownGracefully { return }
                        throw CoordinatorError("cannot subscribe at \(configuration.mqtt.url): \(error)")
                    }
                    await publishStatus()
                    logger.info(
                        "coordinator online",
                        metadata: ["broker": "\(configuration.mqtt.url)", "topology": "\(configuration.topologyDirectory.path)"])
                    group.addTask { [self] in await self.housekeepingLoop() }
                    group.addTask { [self] in await self.flushLoop() }
                    group.addTask { [self] in await self.topologyLoop() }
                    if let ownership, let coordination, let partitionMetrics {
                        group.addTask { [self] in
                            await self.membershipLoop(ownership, coordination: coordination, metrics: partitionMetrics)
                        }
                    }
                }
            } onCancel: { [queue] in
                queue.close()
            }
        } onGracefulShutdown: { [queue, client, self] in
            queue.close()
            // Still waiting for a broker that never answered: nothing was published and nothing is
            // owed, so close the client now; the subscribe waiting for it ends and so does the service.
            if !self.subscribed.withLock({ $0 }) {
                Task { await client.disconnect() }
            }
        }
        await liveClient?.disconnect()
        // Everything queued is applied (the process loop drains the closed queue): plan what waits and write the rest.
        await publish(await core.drain())
        // Bounded, and not at all without a connection: with the broker gone nothing would ever be acknowledged.
        let flush = { [publisher] in
            for _ in 0..<100 where publisher.outstandingMessageCount > 0 && publisher.connectionState.isConnected {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        // A member's last sets go out, then it leaves: revoking its lease deletes its keys at
        // once, and the members that win its partitions claim them.
        if let coordination {
            await flush()
            await coordination.leave()
        }
        // Say goodbye: a clean disconnect does not fire the will.
        if let ownership {
            publishMemberStatus(ownership, state: .offline)
        } else if let payload = try? WireCoding.encode(CoordinatorStatus(state: .offline, time: Date())) {
            try? client.enqueue(topic: topics.coordinatorStatus, payload: payload, qos: .atLeastOnce, retain: true)
        }
        await flush()
        await outboundClient?.disconnect()
    }

    /// Takes batches from the queue and has the core apply them. Messages are read here (routed
    /// and decoded, ``InboundDecoder``) while the core applies the previous batch: decoding is the
    /// largest cost per sighting, and this way it runs beside the core's actor rather than inside
    /// it. When nothing more is queued the core's answer is published at once.
    private func processLoop() async {
        let decoder = InboundDecoder(topics: configuration.topics)
        var applying: Applying?
        while true {
            var taken = queue.poll(upTo: CoordinatorService.batchLimit)
            if taken.isEmpty {
                if let current = applying {
                    applying = nil
                    await finish(current)
                    continue
                }
                taken = await queue.take(upTo: CoordinatorService.batchLimit)
                if taken.isEmpty { return }
            }
            let batch = taken.map { InboundMessage($0, decoder: decoder) }
            if let current = applying { await finish(current) }
            let backlogged = sightingsBacklogged
            applying = Applying(
                batch: batch,
                outputs: Task { [core, metrics] in
                    let started = ContinuousClock.now
                    let outputs = await core.process(batch, backlogged: backlogged)
                    metrics.planLatency.record(ContinuousClock.now - started)
                    return outputs
                })
        }
    }

    /// Messages decoded and applied per step: small enough that decoding the next step overlaps
    /// applying this one all through a backlog (a whole backlog taken at once would be decoded,
    /// then applied, with nothing overlapping).
    static let batchLimit = 32

    /// How long sightings may wait, without the queue emptying, before it counts as a backlog (and
    /// tags' estimates follow the clock alone, see ``CoordinatorEngine/Configuration/tagEstimateInterval``
    /// and ``IngestQueue/sightingsBacklogged(olderThan:now:)``): the core's flush interval. Merely
    /// non-empty is not enough: a window's batches from every gateway arrive together, and with
    /// the demo's gateways at 4x real time that read every flush as backlogged, so tags were
    /// estimated every fourth window and lagged their walk.
    static let backlogAge = Duration.milliseconds(200)

    /// Whether sightings are backlogged now (by ``backlogAge``).
    private var sightingsBacklogged: Bool { queue.sightingsBacklogged(olderThan: CoordinatorService.backlogAge) }

    /// A batch the core is applying.
    private struct Applying {
        var batch: [InboundMessage]
        var outputs: Task<[CoordinatorOutput], Never>
    }

    /// Publishes what the core decided for `applying` and records the latencies and queue depths.
    private func finish(_ applying: Applying) async {
        let outputs = await applying.outputs.value
        await publish(outputs)
        let done = ContinuousClock.now
        if outputs.contains(where: { if case .regions = $0 { true } else { false } }) {
            for inbound in applying.batch where !inbound.isSightings {
                metrics.rotationLatency.record(done - inbound.received)
            }
        }
        let depths = queue.depths
        metrics.sightingsQueue.set(Double(depths.sightings))
        metrics.priorityQueue.set(Double(depths.priority))
        metrics.publishQueue.set(Double(publisher.outstandingMessageCount))
    }

    /// Publishes decisions at QoS 1; `regions` retained. Never drops one: when the client's queue
    /// is full it waits for it to drain.
    func publish(_ outputs: [CoordinatorOutput]) async {
        let topics = configuration.topics
        var outputs = outputs
        if let ownership, let partitionMetrics { outputs = serving(outputs, ownership: ownership, metrics: partitionMetrics) }
        // Hand-written JSON (the same bytes as WireCoding's encoder): a flush can decide thousands.
        var writer = OutputWriter()
        for output in outputs {
            guard let client = Identifier(validating: output.client) else { continue }
            let topic: String
            let payload: [UInt8]
            let retain: Bool
            switch output {
            case .regions(_, let message):
                topic = topics.clientRegions(client)
                payload = writer.encode(message)
                retain = true
            case .event(_, let event):
                topic = topics.clientEvents(client)
                payload = writer.encode(event)
                retain = false
            case .clearRegions:
                topic = topics.clientRegions(client)
                payload = []
                retain = true
            }
            while true {
                do throws(MQTTError) {
                    let enqueue = { () throws(MQTTError) in
                        try self.publisher.enqueue(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
                    }
                    switch output {
                    case .regions(let id, let message):
                        // In increasing order whichever task publishes (PublishedVersions).
                        let outcome = try publishedVersions.enqueue(client: id, version: message.version) { () throws(MQTTError) in
                            try enqueue()
                            enqueueLiveCopy(topic: topic, payload: payload)
                        }
                        if case .stale(let newest) = outcome {
                            logger.debug("not publishing version \(message.version) for \(id): \(newest) went out first")
                        }
                    case .clearRegions(let id):
                        try enqueue()
                        publishedVersions.forget(client: id)
                    case .event: try enqueue()
                    }
                    break
                } catch .queueFull {
                    try? await Task.sleep(for: .milliseconds(5))
                } catch {
                    logger.warning("cannot publish on \(topic): \(error)")
                    break
                }
            }
        }
    }

    private func publishStatus() async {
        var status = await core.status(started: started, version: CoordinatorService.version)
        if let version = client.negotiatedProtocolVersion, let broker = client.connectedBroker {
            status.mqtt = BrokerConnection(protocol: version.number, broker: broker.description)
        }
        guard let payload = try? WireCoding.encode(status) else { return }
        do {
            try publisher.enqueue(topic: configuration.topics.coordinatorStatus, payload: payload, qos: .atLeastOnce, retain: true)
            metrics.messagesOut["status"]?.increment()
        } catch {
            logger.warning("cannot publish the coordinator status: \(error)")
        }
    }

    /// Plans sighting-only clients even when no new message arrives to trigger it.
    private func flushLoop() async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // Tags left over from a bounded flush go at once, a chunk per call, so reports
            // interleave with them on the core.
            if await core.flushPending { await Task.yield() } else { try? await Task.sleep(for: .milliseconds(200)) }
            await publish(await core.flushIfDue(backlogged: sightingsBacklogged))
        }
    }

    private func housekeepingLoop() async {
        var ticks = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await Self.pause(for: configuration.housekeepingInterval)
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            await publish(await core.housekeeping())
            ticks += 1
            if ticks % 6 == 0 { await publishStatus() }
        }
    }

    /// Sleeps for `duration`, or until graceful shutdown begins or the task is cancelled, whichever
    /// comes first: a periodic loop must not hold the process's exit for the rest of its interval
    /// (the 5 s housekeeping sleep made SIGTERM take up to 5 s).
    static func pause(for duration: Duration) async {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: duration) }
    }

    /// Reloads on SIGHUP or when the files change: validated first; on error the old topology
    /// stays and the error goes into the status.
    private func topologyLoop() async {
        let hangup = HangupFlag()
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in await UnixSignalsSequence(trapping: .sighup) { hangup.raised.store(true, ordering: .relaxed) }
            }
            var sincePoll = Duration.zero
            let step = Duration.milliseconds(200)
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                try? await Task.sleep(for: step)
                sincePoll += step
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                let signalled = hangup.raised.exchange(false, ordering: .relaxed)
                var changed = false
                if configuration.topologyPollInterval > .zero, sincePoll >= configuration.topologyPollInterval {
                    sincePoll = .zero
                    changed = topologyStamp.changed()
                }
                guard signalled || changed else { continue }
                do {
                    let venue = try CoordinatorService.load(configuration)
                    let outputs = await core.reload(venue)
                    logger.info("topology reloaded (\(signalled ? "SIGHUP" : "files changed")): \(outputs.count) messages to publish")
                    await publish(outputs)
                } catch {
                    logger.error("topology reload refused, keeping the previous one: \(error)")
                    await core.reloadFailed("\(error)")
                }
                await publishStatus()
            }
            group.cancelAll()
        }
    }

    /// The version every status reports.
    public static let version = BeaconFleetVersion.current
}

/// Set when SIGHUP arrives.
final class HangupFlag: Sendable {
    let raised = Atomic<Bool>(false)
}

/// The newest modification time and total size of a directory's files, to notice edits.
final class TopologyStamp: Sendable {
    let directory: URL
    private let last: Mutex<String>

    init(directory: URL) {
        self.directory = directory
        self.last = Mutex(TopologyStamp.stamp(directory))
    }

    /// Whether the files changed since the last call.
    func changed() -> Bool {
        let now = TopologyStamp.stamp(directory)
        return last.withLock { last in
            defer { last = now }
            return last != now
        }
    }

    static func stamp(_ directory: URL) -> String {
        let files =
            (try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey])) ?? []
        return files.sorted { $0.path < $1.path }.map { url in
            let values = try? url.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey])
            return "\(url.lastPathComponent):\(values?.fileSize ?? -1):\(values?.contentModificationDate?.timeIntervalSince1970 ?? 0)"
        }.joined(separator: "|")
    }
}
