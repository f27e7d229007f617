import Foundation
public import WireProtocol

/// Everything one wake needs, within iOS's ~10 s: ask iOS the state of the regions it holds,
/// connect, report what happened (a state that differs from what the app last knew included), read the
/// retained `regions` message, apply it, wait briefly for a newer version (the coordinator's
/// answer to the report), apply that, wait for the states of the regions added, report what iOS
/// really holds, disconnect.
///
/// Every wait is bounded by the wake's deadline (``Options/wakeBudget`` from the start, less
/// ``Options/reportReserve`` kept for the last report); at the deadline it gives up cleanly and
/// the outcome says what was done. Events that could not be reported stay in the log for the
/// next wake. The app feeds the monitor's events into ``events`` (``RegionEventLog/consume(_:)``)
/// for the lifetime of the process.
public struct RegionSyncSession<C: Clock>: Sendable where C.Duration == Duration {
    /// How a wake spends its time.
    public struct Options: Sendable, Hashable {
        /// The whole wake; iOS gives a woken app about 10 s.
        public var wakeBudget: Duration
        /// Kept at the end for the last report and the disconnect.
        public var reportReserve: Duration
        /// How long to wait for the retained `regions` message after subscribing.
        public var regionsWait: Duration
        /// How long to keep listening for a newer `regions` message after applying one.
        public var linger: Duration
        /// Also publish each report at QoS 0 beside the QoS 1 report (the same bytes, through
        /// ``RegionSyncTransport/publishCopy(_:to:)``; the coordinator drops the second it
        /// receives). For a NATS cluster: there a QoS 1 publish is stored in JetStream before it
        /// goes on, and after `kill -9` of the node leading that stream every report waited 8–9 s,
        /// longer than a wake, while QoS 0 took core NATS at once (docs/mqtt.md). On mosquitto it
        /// only doubles the reports.
        public var reportCopy: Bool
        /// How long, from the wake's start, the first report waits for the states of the regions
        /// iOS holds (asked for at every wake: ``RegionApplier/requestStates()``).
        public var stateWait: Duration

        public init(
            wakeBudget: Duration = .seconds(9), reportReserve: Duration = .seconds(1), regionsWait: Duration = .seconds(3),
            linger: Duration = .seconds(2), reportCopy: Bool = false, stateWait: Duration = .milliseconds(500)
        ) {
            self.wakeBudget = wakeBudget
            self.reportReserve = reportReserve
            self.regionsWait = regionsWait
            self.linger = linger
            self.reportCopy = reportCopy
            self.stateWait = stateWait
        }
    }

    /// The phone's client id (the topics' `{id}`).
    public let client: Identifier
    public let topics: Topics
    public let transport: any RegionSyncTransport
    public let applier: RegionApplier<C>
    /// The monitor's events since the last report.
    public let events: RegionEventLog
    public let options: Options
    /// What the app says about the phone in every report of this wake (``PhoneContext``).
    public let context: PhoneContext

    public init(
        client: Identifier, topics: Topics, transport: any RegionSyncTransport, applier: RegionApplier<C>, events: RegionEventLog,
        options: Options = Options(), context: PhoneContext = PhoneContext()
    ) {
        self.client = client
        self.topics = topics
        self.transport = transport
        self.applier = applier
        self.events = events
        self.options = options
        self.context = context
    }

    /// Runs one wake. `ranged` are the beacons ranged during it; `advertising` the identity the
    /// phone advertises in the foreground, if any.
    public func wake(ranged: [RangedBeacon] = [], advertising: AdvertisedIdentity? = nil) async -> RegionSyncWakeOutcome {
        let clock = applier.clock
        let start = clock.now
        let deadline = start.advanced(by: options.wakeBudget)
        let work = deadline.advanced(by: .zero - options.reportReserve)
        var outcome = RegionSyncWakeOutcome()

        // What iOS holds now, asked before connecting (it answers within milliseconds, the
        // connect takes longer): an enter or exit iOS never delivered is in the first report.
        let asked = await applier.requestStates()
        let askedMark = await events.mark
        let transport = self.transport
        do throws(RegionSyncError) {
            try await within(work, "connect") { () throws(RegionSyncError) in try await transport.connect() }
            outcome.connected = true
        } catch {
            outcome.errors.append(error)
            await transport.disconnect()
            // Set here, not in a `defer`: a `defer` runs after the returned copy is made.
            outcome.elapsed = start.duration(to: clock.now)
            return outcome
        }

        let regionsTopic = topics.clientRegions(client)
        let mailbox = Mailbox<[UInt8]>()
        var pump: Task<Void, Never>?
        do throws(RegionSyncError) {
            let stream = try await within(work, "subscribe") { () throws(RegionSyncError) in try await transport.subscribe(regionsTopic) }
            pump = Task {
                for await payload in stream { await mailbox.put(payload) }
                await mailbox.finish()
            }
        } catch {
            outcome.errors.append(error)
        }

        // The states asked for at the start, waited for at most `stateWait` from the start.
        await waitForStates(of: asked, since: askedMark, until: min(start.advanced(by: options.stateWait), work))
        // Not waited for before reading: on a NATS cluster a QoS 1 publish can stall for seconds
        // while the coordinator already answered its QoS 0 copy.
        let first = await sendReport(ranged: ranged, advertising: advertising, until: work, into: &outcome)
        let mark = await events.mark
        if pump != nil {
            var until = min(clock.now.advanced(by: options.regionsWait), work)
            while let payload = await next(from: mailbox, until: until) {
                let message: RegionsMessage
                do throws(WireError) {
                    message = try WireCoding.decode(RegionsMessage.self, from: payload, topic: regionsTopic)
                } catch {
                    outcome.errors.append(.invalidMessage(error.description))
                    continue
                }
                let result = await applier.apply(message, deadline: work)
                outcome.applied.append(result)
                if !result.completed { outcome.errors.append(.deadline("applying version \(message.version)")) }
                until = min(clock.now.advanced(by: options.linger), work)
            }
            if clock.now >= work, outcome.applied.isEmpty { outcome.errors.append(.deadline("a regions message arrived")) }
        }
        pump?.cancel()
        // The states asked for the regions added (iOS answers `requestState` within milliseconds,
        // through the app's event pump): wait for them, so that this wake's report says which of
        // them the phone is already inside. A region refused silently is not held, nor waited for.
        if let last = outcome.applied.last(where: { $0.path != .ignored }) {
            let added = Set(outcome.applied.flatMap(\.started)).intersection(last.held)
            await waitForStates(of: added, since: mark, until: work)
        }

        if let first { await settle(first, into: &outcome) }
        let held = await applier.monitor.monitoredRegions()
        await events.keepOnly(held.compactMap { applier.configuration.region(forIdentifier: $0.identifier) })
        await applier.rememberInside(await events.inside)
        if outcome.applied.contains(where: { $0.path != .ignored }) || outcome.reportsPublished == 0 {
            if let last = await sendReport(ranged: [], advertising: advertising, until: deadline, into: &outcome) {
                await settle(last, into: &outcome)
            }
        }
        await transport.disconnect()
        outcome.elapsed = start.duration(to: clock.now)
        return outcome
    }

    /// A report handed to the transport, its QoS 1 publish still running.
    struct PendingReport {
        let report: ClientReport
        /// The events it carries, back to the log if it cannot be published.
        let taken: [RegionEvent]
        /// The QoS 1 publish, bounded by the deadline it was sent with.
        let publish: Task<RegionSyncError?, Never>
        /// The QoS 0 copy (``Options/reportCopy``), bounded the same way; its failure is not the report's.
        let copy: Task<Void, Never>?
    }

    /// Sends a report of the events since the last one and what iOS holds: its QoS 1 publish
    /// starts, and with ``Options/reportCopy`` its QoS 0 copy beside it (best effort: the QoS 1
    /// report is the one that must arrive). `nil` when it cannot be encoded (the events go back).
    func sendReport(
        ranged: [RangedBeacon], advertising: AdvertisedIdentity?, until deadline: C.Instant, into outcome: inout RegionSyncWakeOutcome
    ) async -> PendingReport? {
        let taken = await events.takeEvents()
        let report = await RegionReportBuilder(configuration: applier.configuration).report(
            from: applier.monitor, ranged: ranged, events: taken, version: await applier.appliedVersion, advertising: advertising,
            context: context)
        let payload: [UInt8]
        do {
            payload = try WireCoding.encode(report)
        } catch {
            await events.restore(taken)
            outcome.errors.append(.invalidMessage("encoding the report: \(error)"))
            return nil
        }
        let topic = topics.clientReport(client)
        let transport = self.transport
        let copy =
            options.reportCopy
            ? Task { () -> Void in
                _ = try? await within(deadline, "publish the report's copy") { () throws(RegionSyncError) in
                    try await transport.publishCopy(payload, to: topic)
                }
            } : nil
        let publish = Task { () -> RegionSyncError? in
            do throws(RegionSyncError) {
                try await within(deadline, "publish the report") { () throws(RegionSyncError) in
                    try await transport.publish(payload, to: topic)
                }
                return nil
            } catch {
                return error
            }
        }
        return PendingReport(report: report, taken: taken, publish: publish, copy: copy)
    }

    /// Waits for `pending`'s QoS 1 publish and its copy (at most until their deadline, so that the
    /// disconnect does not cut the copy off) and counts the report, or puts its events back in the log.
    func settle(_ pending: PendingReport, into outcome: inout RegionSyncWakeOutcome) async {
        await pending.copy?.value
        if let error = await pending.publish.value {
            await events.restore(pending.taken)
            outcome.errors.append(error)
        } else {
            outcome.reportsPublished += 1
            outcome.lastReport = pending.report
        }
    }

    /// Waits until iOS has said something about each of `regions` since the log's `mark` (the
    /// answers to `requestState`, through the app's event pump), or until `deadline`.
    func waitForStates(of regions: some Sequence<String> & Sendable, since mark: UInt64, until deadline: C.Instant) async {
        let clock = applier.clock
        while clock.now < deadline, await !events.answered(regions, since: mark) {
            try? await clock.sleep(until: min(clock.now.advanced(by: .milliseconds(10)), deadline), tolerance: nil)
        }
    }

    /// The next payload, or `nil` at `deadline` or when the stream ended.
    func next(from mailbox: Mailbox<[UInt8]>, until deadline: C.Instant) async -> [UInt8]? {
        let clock = applier.clock
        let ticket = await mailbox.ticket()
        let timer = Task {
            try? await clock.sleep(until: deadline, tolerance: nil)
            await mailbox.expire(ticket)
        }
        defer { timer.cancel() }
        return await mailbox.next(ticket: ticket)
    }

    /// Runs `operation`, giving up on it at `deadline` (it may go on in the background).
    func within<T: Sendable>(
        _ deadline: C.Instant, _ step: String, _ operation: @escaping @Sendable () async throws(RegionSyncError) -> T
    ) async throws(RegionSyncError) -> T {
        let clock = applier.clock
        guard clock.now < deadline else { throw .deadline(step) }
        let race = OneShot<Result<T, RegionSyncError>>()
        var tasks: [Task<Void, Never>] = []
        let result = await race.wait {
            tasks.append(
                Task {
                    do throws(RegionSyncError) { race.resolve(.success(try await operation())) } catch { race.resolve(.failure(error)) }
                })
            tasks.append(
                Task {
                    try? await clock.sleep(until: deadline, tolerance: nil)
                    race.resolve(.failure(.deadline(step)))
                })
        }
        for task in tasks { task.cancel() }
        // Not `result.get()`: its typed throws came with Swift 6's standard library, not the iOS 17 SDK's.
        switch result {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}
