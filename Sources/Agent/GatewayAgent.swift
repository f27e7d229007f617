import Foundation
public import Logging
public import MQTT
public import ServiceLifecycle
public import WireProtocol

/// The gateway agent: source → decode → filter → aggregate per window → spool → publish.
///
/// Run it under a `ServiceGroup` after the ``MQTTClient`` it publishes through (the group shuts
/// services down in reverse order, so the client outlives the agent's last messages):
///
/// ```swift
/// let agent = try GatewayAgent(configuration: configuration, source: source, client: client, logger: logger)
/// let group = ServiceGroup(configuration: .init(
///     services: [.init(service: client), .init(service: agent, successTerminationBehavior: .gracefullyShutdownGroup)],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// Every closed window becomes a `SightingsBatch` with the next sequence number and is written to
/// the spool before it is published (QoS 1); it leaves the spool on the broker's acknowledgement.
/// While the broker is away batches wait in the spool (bounded; the oldest are dropped past the
/// bound) and are delivered in order after reconnecting, also after a crash and restart.
///
/// The agent's status is retained on `gateways/{gw}/status`: `online` with live counters, refreshed
/// every `statusInterval` and after every reconnect; `offline` when it stops, and as its last will.
///
/// On graceful shutdown (SIGTERM) it flushes the current window, waits up to `drainTimeout` for
/// acknowledgements, keeps the rest in the spool and returns. A replay returns when the capture
/// ends, after the same drain.
public final class GatewayAgent: Service, Sendable {
    public let configuration: AgentConfiguration
    private let client: MQTTClient
    private let logger: Logger
    private let version: String
    nonisolated(unsafe) private let source: any HCIEventSource
    private let spool: SpoolBox
    private let counters = PipelineCounters()
    private let brokerState = LockedValue<String>("connecting")
    /// Batches that could not even be spooled (disk full, I/O error); counted with the dropped ones.
    private let unspooled = LockedValue<UInt64>(0)
    /// The coordinator's configuration in use (``GatewayStatus/configuration``), and the local
    /// settings it runs with now.
    private let remote = LockedValue<GatewayStatus.AppliedConfiguration?>(nil)
    private let running: LockedValue<AppliedRemoteConfiguration>
    /// Set when the status should go out at once (a configuration was applied).
    private let statusDue = LockedValue(false)

    /// Creates the agent and opens (recovering) its spool.
    /// - Parameters:
    ///   - source: the opened source; the agent closes it when it stops.
    ///   - client: the MQTT client, configured with ``lastWill(configuration:version:)``.
    ///   - version: the software version reported in the status.
    public init(
        configuration: AgentConfiguration, source: any HCIEventSource, client: MQTTClient, version: String = BeaconFleetVersion.current,
        logger: Logger = Logger(label: "beaconfleet.agent")
    ) throws(SpoolError) {
        self.configuration = configuration
        self.source = source
        self.client = client
        self.version = version
        self.logger = logger
        running = LockedValue(
            AppliedRemoteConfiguration(filter: configuration.filter, windowMicros: configuration.windowMicros, revision: "", overridden: [])
        )
        let spool = try BatchSpool(
            directory: configuration.spoolDirectory, limitBytes: configuration.spoolLimitBytes, synchronous: configuration.spoolSynchronous)
        let (stats, nextSequence, epoch) = (spool.statistics, spool.nextSequence, spool.epoch)
        self.spool = SpoolBox(spool)
        logger.info(
            "spool opened", metadata: ["spool": "\(configuration.spoolDirectory)", "epoch": "\(epoch)", "nextSeq": "\(nextSequence)"])
        if stats.batches > 0 || stats.truncatedRecords > 0 {
            logger.notice(
                "spool recovered",
                metadata: [
                    "spool": "\(configuration.spoolDirectory)", "batches": "\(stats.batches)", "truncated": "\(stats.truncatedRecords)",
                    "nextSeq": "\(nextSequence)",
                ])
        }
    }

    /// The last will for the agent's MQTT connection: the retained `offline` status.
    public static func lastWill(configuration: AgentConfiguration, version: String) -> LastWill {
        let status = GatewayStatus(state: .offline, version: version, adapter: configuration.source.statusName)
        return LastWill(
            topic: configuration.topics.gatewayStatus(configuration.gateway),
            payload: (try? WireCoding.encode(status)) ?? Array("{\"v\":1,\"state\":\"offline\"}".utf8),
            qos: .atLeastOnce, retain: true)
    }

    /// Runs `client` and the agent under one `ServiceGroup` (the client first, so it outlives the
    /// agent's last messages) until the replay ends or, with `handleSignals`, SIGTERM or SIGINT.
    public func runWithClient(handleSignals: Bool = true) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [
                    .init(service: client),
                    .init(service: self, successTerminationBehavior: .gracefullyShutdownGroup),
                ],
                gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                logger: logger))
        try await group.run()
    }

    /// The pipeline's counts so far.
    public var counts: PipelineCounts { counters.snapshot }

    /// The spool's figures now.
    public var spoolStatistics: SpoolStatistics { spool.withLock { $0.statistics } }

    /// The filter and window length the pipeline runs with now (the coordinator's configuration
    /// applied over the local settings, once one arrived).
    public var effectiveConfiguration: AppliedRemoteConfiguration { running.current }

    /// The coordinator's configuration revision in use; `nil` before one arrived.
    public var configurationRevision: String? { remote.current?.revision }

    public func run() async throws {
        let started = Date()
        let gateway = configuration.gateway
        let sightingsTopic = configuration.topics.sightings(gateway)

        // A replay interrupted earlier resumes after the last packet its spooled batches account for.
        let checkpointSource = source.checkpointIdentity
        if configuration.resumeReplay, let checkpointSource, let checkpoint = spool.withLock({ $0.checkpoint }),
            checkpoint.source == checkpointSource, checkpoint.position > 0
        {
            try source.skip(packets: checkpoint.position)
            logger.notice("resuming the replay after its last spooled window", metadata: ["packets": "\(checkpoint.position)"])
        }

        let (wakeups, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        var writer = SightingsBatchWriter()
        let spool = self.spool
        let logger = self.logger
        let unspooled = self.unspooled
        let pipeline = SightingsPipeline(
            source: source, filter: configuration.filter,
            aggregator: WindowAggregator(windowMicros: configuration.windowMicros), counters: counters
        ) { window, position in
            let checkpoint = checkpointSource.map { SourceCheckpoint(source: $0, position: position) }
            do {
                try spool.withLock { spool in
                    let epoch = spool.epoch
                    try spool.append(checkpoint: checkpoint) { seq in
                        writer.encode(
                            gateway: gateway.rawValue, seq: seq, epoch: epoch, startMicros: window.startMicros, endMicros: window.endMicros,
                            sightings: window.sightings)
                    }
                }
            } catch {
                // A full disk or a batch larger than the spool: the batch is lost, say so loudly.
                unspooled.update { $0 += 1 }
                logger.error(
                    "could not spool a sightings batch; it is lost",
                    metadata: ["error": "\(error)", "sightings": "\(window.sightings.count)"])
            }
            wake.yield()
        }

        // The coordinator's configuration for this gateway (retained): applied while running.
        let registration = configuration.remoteConfiguration ? watchRemoteConfiguration(pipeline) : nil
        defer { registration?.cancel() }

        // Publishing waits for acknowledgements that may never come while the broker is away, so these
        // run as tasks of their own: cancelled at the end, never awaited (a publish still waiting ends
        // when the client closes).
        var helpers = [
            Task { await self.watchConnection(wake: wake) },
            Task { await self.publishSpooled(topic: sightingsTopic, wakeups: wakeups) },
            Task { await Self.tick(wake) },
            Task { await self.refreshStatus(started: started) },
        ]
        if registration != nil { helpers.append(Task { await self.subscribeRemoteConfiguration() }) }
        let reachedEnd: Bool
        do {
            reachedEnd = try await withGracefulShutdownHandler {
                try await Self.runOnThread(pipeline)
            } onGracefulShutdown: {
                pipeline.requestStop()
            }
        } catch {
            helpers.forEach { $0.cancel() }
            wake.finish()
            await publishStatus(.offline, started: started, reportsPerSecond: 0, timeout: 2)
            throw error
        }
        await drain()
        helpers.forEach { $0.cancel() }
        let remaining = spool.withLock { $0.statistics }
        if reachedEnd, remaining.batches == 0 {
            try? spool.withLock { try $0.clearCheckpoint() }
        }
        logger.notice(
            reachedEnd ? "replay finished" : "stopping",
            metadata: [
                "reports": "\(counters.snapshot.reports)", "windows": "\(counters.snapshot.windows)",
                "spooled": "\(remaining.batches)", "dropped": "\(remaining.dropped)",
            ])
        if brokerState.current == "connected" {
            await publishStatus(.offline, started: started, reportsPerSecond: 0, timeout: 2)
        }
    }

    // MARK: - The coordinator's configuration

    /// Applies every configuration that arrives on this gateway's config topic to `pipeline` (see
    /// ``AgentConfiguration/applying(_:)``); an empty one (the gateway left the topology) goes back
    /// to the local settings; an invalid one is refused and logged, the one in use stays.
    private func watchRemoteConfiguration(_ pipeline: SightingsPipeline) -> MessageHandlerRegistration {
        let topic = configuration.topics.gatewayConfig(configuration.gateway)
        let configuration = self.configuration
        let (logger, remote, running, statusDue) = (self.logger, self.remote, self.running, self.statusDue)
        return client.handleMessages { message in
            guard message.topic == topic else { return }
            let applied: AppliedRemoteConfiguration
            if message.payload.isEmpty {
                guard remote.current != nil else { return }
                applied = AppliedRemoteConfiguration(
                    filter: configuration.filter, windowMicros: configuration.windowMicros, revision: "", overridden: [])
                remote.update { $0 = nil }
                logger.notice("the coordinator withdrew this gateway's configuration; back to the local settings")
            } else {
                do {
                    let received = try WireCoding.decode(GatewayConfiguration.self, from: message.payload, topic: message.topic)
                    if received.revision == remote.current?.revision { return }  // a retained re-delivery
                    applied = try configuration.applying(received)
                } catch {
                    logger.warning(
                        "gateway configuration refused; the one in use stays", metadata: ["topic": "\(topic)", "error": "\(error)"])
                    return
                }
                remote.update {
                    $0 = GatewayStatus.AppliedConfiguration(
                        revision: applied.revision, applied: Date(), overridden: applied.overridden.isEmpty ? nil : applied.overridden)
                }
                let keep = applied.filter.keep.map { String($0.uuids.count + $0.namespaces.count + $0.addresses.count) + " rules" } ?? "all"
                logger.notice(
                    "gateway configuration applied",
                    metadata: [
                        "revision": "\(applied.revision)", "windowMicros": "\(applied.windowMicros)",
                        "minRssi": "\(applied.filter.minimumRSSI)", "keep": "\(keep)",
                        "overridden": "\(applied.overridden)",
                    ])
            }
            running.update { $0 = applied }
            pipeline.update(filter: applied.filter, windowMicros: applied.windowMicros)
            statusDue.update { $0 = true }
        }
    }

    /// Subscribes to this gateway's config topic once connected (the client renews it on every reconnection).
    private func subscribeRemoteConfiguration() async {
        for await state in client.connectionStates {
            if case .connected = state { break }
            if case .closed = state { return }
        }
        let topic = configuration.topics.gatewayConfig(configuration.gateway)
        do {
            try await client.subscribe(topic, qos: .atLeastOnce)
        } catch {
            logger.warning("cannot subscribe to \(topic); the coordinator's configuration is not applied", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Pipeline thread

    private static func runOnThread(_ pipeline: SightingsPipeline) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do {
                    continuation.resume(returning: try pipeline.run())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = "beaconfleet-pipeline"
            thread.start()
        }
    }

    // MARK: - Publishing

    private func watchConnection(wake: AsyncStream<Void>.Continuation) async {
        for await state in client.connectionStates {
            switch state {
            case .connected:
                brokerState.update { $0 = "connected" }
                wake.yield()
            case .connecting, .idle:
                brokerState.update { $0 = "connecting" }
            case .disconnected(let reason):
                brokerState.update { $0 = "disconnected" }
                logger.warning("broker unreachable; batches wait in the spool", metadata: ["reason": "\(reason)"])
            case .closed:
                brokerState.update { $0 = "disconnected" }
                return
            }
            if Task.isCancelled { return }
        }
    }

    /// Publishes spooled batches in order whenever connected: up to `maxInflight` at a time (and at
    /// most `maxInflightBytes` of payload, but always at least one batch) are handed
    /// to the client in `seq` order, and each block leaves the spool once the broker has acknowledged
    /// all of it. Woken by every new batch, every (re)connect, and once a second.
    private func publishSpooled(topic: String, wakeups: AsyncStream<Void>) async {
        var lastSent: UInt64 = 0
        for await _ in wakeups {
            while !Task.isCancelled, brokerState.current == "connected" {
                let block: [SpooledBatch]
                do {
                    block = try spool.withLock {
                        try $0.pending(after: lastSent, limit: configuration.maxInflight, byteLimit: configuration.maxInflightBytes)
                    }
                } catch {
                    logger.error("cannot read the spool", metadata: ["error": "\(error)"])
                    break
                }
                guard !block.isEmpty else { break }
                var handedOver: [UInt64] = []
                for batch in block {
                    do {
                        // QoS 1: libmosquitto keeps it across reconnects until the broker's PUBACK.
                        try client.enqueue(topic: topic, payload: batch.payload, qos: .atLeastOnce, retain: false)
                        handedOver.append(batch.seq)
                    } catch {
                        // Refused or closed: this batch and the rest stay spooled and go again later.
                        logger.warning("publish refused; the batch stays spooled", metadata: ["seq": "\(batch.seq)", "error": "\(error)"])
                        break
                    }
                }
                guard let last = handedOver.last else { break }
                lastSent = last
                await client.drain()
                // `drain` also returns when the client closes: then nothing is known to be acknowledged.
                if case .closed = client.connectionState { return }
                do {
                    try spool.withLock { spool in
                        for seq in handedOver { try spool.acknowledge(seq) }
                    }
                } catch {
                    logger.error("cannot record acknowledgements in the spool", metadata: ["through": "\(last)", "error": "\(error)"])
                }
            }
            if Task.isCancelled { return }
        }
    }

    private static func tick(_ wake: AsyncStream<Void>.Continuation) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            wake.yield()
        }
    }

    /// Waits until every spooled batch is acknowledged or `drainTimeout` passes (what is still
    /// unacknowledged then stays in the spool for the next run).
    private func drain() async {
        let deadline = ContinuousClock.now + .milliseconds(Int64(configuration.drainTimeout * 1000))
        while ContinuousClock.now < deadline {
            if spool.withLock({ $0.statistics.batches }) == 0 { return }
            // Nothing can be acknowledged without a broker: stop at once (the batches stay spooled).
            if brokerState.current != "connected" { return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    // MARK: - Status

    private func refreshStatus(started: Date) async {
        var lastReports = counters.snapshot.reports
        var lastTime = ContinuousClock.now
        var wasConnected = false
        while !Task.isCancelled {
            let connected = brokerState.current == "connected"
            let now = ContinuousClock.now
            let elapsed = Double((now - lastTime).components.seconds) + Double((now - lastTime).components.attoseconds) / 1e18
            if connected {
                let reports = counters.snapshot.reports
                let rate = elapsed > 0 ? Double(reports - lastReports) / elapsed : 0
                await publishStatus(.online, started: started, reportsPerSecond: rate, timeout: nil)
                lastReports = reports
                lastTime = now
            }
            wasConnected = connected
            // Refresh every interval; after a reconnect, at once (the broker may have lost the retained status).
            let interval = configuration.statusInterval
            var waited = 0.0
            while waited < interval, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                waited += 0.1
                if !wasConnected, brokerState.current == "connected" { break }
                if statusDue.update({ due in
                    defer { due = false }; return due
                }) {
                    break
                }
            }
        }
    }

    private func publishStatus(_ state: GatewayStatus.State, started: Date, reportsPerSecond: Double, timeout: Double?) async {
        let counts = counters.snapshot
        let stats = spool.withLock { $0.statistics }
        let lastSeq = spool.withLock { $0.nextSequence } - 1
        var status = GatewayStatus(
            state: state, version: version, adapter: configuration.source.statusName, started: started, time: Date(),
            counters: GatewayStatus.Counters(
                reportsPerSecond: (reportsPerSecond * 10).rounded() / 10, reports: counts.reports, malformed: counts.malformed,
                dropped: stats.dropped + unspooled.current, spooled: stats.batches, spoolBytes: stats.bytes,
                spoolLimitBytes: stats.limitBytes,
                broker: brokerState.current, lastSeq: lastSeq))
        if let version = client.negotiatedProtocolVersion, let broker = client.connectedBroker {
            status.mqtt = BrokerConnection(protocol: version.number, broker: broker.description)
        }
        if state == .online {
            status.configuration =
                configuration.remoteConfiguration
                ? remote.current : GatewayStatus.AppliedConfiguration(revision: "", overridden: ["all"])
        }
        guard let payload = try? WireCoding.encode(status) else { return }
        let topic = configuration.topics.gatewayStatus(configuration.gateway)
        let client = self.client
        if let timeout {
            // Wait at most `timeout` for the acknowledgement; the publish itself is left to finish or fail.
            let done = LockedValue(false)
            Task {
                try? await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
                done.update { $0 = true }
            }
            let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
            while !done.current, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
        } else {
            do {
                try await client.publish(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
            } catch {
                logger.debug("status not published", metadata: ["error": "\(error)"])
            }
        }
    }
}
