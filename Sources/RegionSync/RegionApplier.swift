import BeaconKit
public import WireProtocol

/// Applies `regions` messages to a ``RegionMonitor`` by iOS's rules (see IOS.md):
///
/// - a re-delivery of a version already applied (the retained message on every reconnect), or an
///   older one, calls nothing;
/// - the message's `add` / `remove` are used only when its version follows the applied one, what
///   iOS holds of BeaconFleet's matches the applied set and the diff leads to the message's set;
///   otherwise it converges to the whole `regions` set (a lost message costs nothing);
/// - an unchanged region (same identifier and identity) is never registered again (a re-add
///   resets its state and can fire a second enter); a region whose identity changed is stopped
///   and started;
/// - stops come first, then starts once ``RegionSyncConfiguration/removeAddGap`` (≥ 0.1 s) has
///   passed since the last stop (waited on the injected clock), then `requestState` for every
///   region started (iOS fires no enter for a region added while its beacon is in range);
/// - only identifiers with ``RegionSyncConfiguration/identifierPrefix`` are touched or counted;
/// - when fewer slots are free than the plan has regions, or iOS refuses starts, the plan's own
///   priority order (the order of `regions`) decides which regions are held, and the rest are
///   reported as left out.
///
/// The applied version and set are kept in a ``RegionSyncStore`` across launches.
public actor RegionApplier<C: Clock> where C.Duration == Duration {
    /// The monitor the regions are applied to.
    public nonisolated let monitor: any RegionMonitor
    public nonisolated let configuration: RegionSyncConfiguration
    /// The clock the gap and the settle are waited on (and deadlines read from).
    public nonisolated let clock: C
    let store: any RegionSyncStore
    /// What is applied now (also saved in the store).
    public private(set) var state: RegionSyncState
    /// When this applier last stopped a region: no start before ``RegionSyncConfiguration/removeAddGap`` after it.
    private var lastStop: C.Instant?

    /// An applier over `monitor`, starting from what `store` holds (an empty state when it cannot be read).
    public init(
        monitor: any RegionMonitor, store: any RegionSyncStore = InMemoryRegionSyncStore(),
        configuration: RegionSyncConfiguration = RegionSyncConfiguration(), clock: C
    ) {
        self.monitor = monitor
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.state = (try? store.load()) ?? RegionSyncState()
    }

    /// The version applied last.
    public var appliedVersion: UInt64? { state.version }

    /// Records the region ids last known inside, for the next launch (see ``RegionEventLog``).
    public func rememberInside(_ inside: [String]) {
        guard state.inside != inside else { return }
        state.inside = inside
        try? store.save(state)
    }

    /// Asks iOS for the state of every BeaconFleet region it holds (the app's own are left alone);
    /// the answers come as `.state` events, which ``RegionEventLog`` reports only where they differ
    /// from what it last knew. IOS.md: some enters and exits are never delivered, and a region the
    /// coordinator still believes inside after a lost exit is no exit wire at all; asking at every
    /// wake puts the report right. Returns the region ids asked about.
    @discardableResult
    public func requestStates() async -> [String] {
        let ours = ownRegions(await monitor.monitoredRegions()).filter { $0.value != nil }.keys.sorted()
        for id in ours { await monitor.requestState(identifier: configuration.identifier(forRegion: id)) }
        return ours
    }

    /// Applies `message`. Stops before a step that would pass `deadline` (the outcome is then not
    /// ``RegionApplyOutcome/completed`` and the version is not recorded, so the next delivery of
    /// the same message is applied again).
    public func apply(_ message: RegionsMessage, deadline: C.Instant? = nil) async -> RegionApplyOutcome {
        if let applied = state.version, message.version <= applied {
            return RegionApplyOutcome(version: message.version, appliedVersion: applied, path: .ignored, budget: nil)
        }
        var failures: [RegionApplyOutcome.Failure] = []
        let target = Self.plan(message.regions, failures: &failures)
        var held = await monitor.monitoredRegions()
        var ours = ownRegions(held)
        let budget = configuration.budget(held: held)
        let path: RegionApplyOutcome.Path = diffApplies(message, target: target, ours: ours) ? .diff : .full

        var wanted = Array(target.prefix(budget))
        var started: [String] = []
        var stopped: [String] = []
        var asked: Set<String> = []
        var completed = true
        rounds: for _ in 0..<configuration.rounds {
            let wantedIDs = Set(wanted.map(\.id))
            let stops = ours.keys.filter { id in !wantedIDs.contains(id) || wanted.first { $0.id == id }?.identity != ours[id] }
                .sorted { rank(of: $0, in: target) > rank(of: $1, in: target) }
            let starts = wanted.filter { ours[$0.id] != $0.identity }
            if stops.isEmpty && starts.isEmpty { break }
            guard before(deadline) else {
                completed = false
                break
            }
            for id in stops {
                await monitor.stopMonitoring(identifier: configuration.identifier(forRegion: id))
                stopped.append(id)
                lastStop = clock.now
            }
            if !starts.isEmpty {
                if let lastStop, case let gap = configuration.removeAddGap - lastStop.duration(to: clock.now), gap > .zero {
                    guard before(deadline, after: gap), await wait(gap) else {
                        completed = false
                        break rounds
                    }
                }
                for region in starts {
                    await monitor.startMonitoring(
                        BeaconRegion(identifier: configuration.identifier(forRegion: region.id), identity: region.identity))
                    started.append(region.id)
                    asked.insert(region.id)
                }
                for region in starts {
                    await monitor.requestState(identifier: configuration.identifier(forRegion: region.id))
                }
                if !(await wait(configuration.settleDelay)) { completed = false }
            }
            held = await monitor.monitoredRegions()
            ours = ownRegions(held)
            if !completed { break }
            // iOS holds fewer than asked: give the slots it accepted to the plan's first regions.
            let accepted = wanted.lazy.filter { ours[$0.id] == $0.identity }.count
            if accepted == wanted.count { break }
            wanted = Array(target.prefix(ours.count))
        }

        let heldIDs = target.filter { ours[$0.id] == $0.identity }.map(\.id)
        let others = ours.keys.filter { id in !heldIDs.contains(id) }.sorted()
        let invalid = message.regions.map(\.id).filter { id in !target.contains { $0.id == id } }
        failures += asked.filter { id in !heldIDs.contains(id) }.sorted { rank(of: $0, in: target) < rank(of: $1, in: target) }.map {
            .refused($0)
        }
        failures += stopped.filter { id in ours[id] != nil && !target.contains { $0.id == id && $0.identity == ours[id] } }.map {
            .notStopped($0)
        }
        if completed {
            state.version = message.version
            state.regions = message.regions
            do { try store.save(state) } catch { failures.append(.store(error.description)) }
        }
        return RegionApplyOutcome(
            version: message.version, appliedVersion: state.version, path: path, budget: budget,
            held: heldIDs + others, leftOut: target.map(\.id).filter { !heldIDs.contains($0) } + invalid,
            started: started, stopped: stopped, failures: failures, completed: completed)
    }

    /// A region of the plan: its id and identity.
    struct Planned: Equatable {
        var id: String
        var identity: RegionIdentity
    }

    /// The message's regions in order, the first of each id, with a valid identity.
    static func plan(_ regions: [RegionRef], failures: inout [RegionApplyOutcome.Failure]) -> [Planned] {
        var seen: Set<String> = []
        var plan: [Planned] = []
        for region in regions where seen.insert(region.id).inserted {
            guard let identity = RegionIdentity(region) else {
                failures.append(.invalidUUID(region.id))
                continue
            }
            plan.append(Planned(id: region.id, identity: identity))
        }
        return plan
    }

    /// BeaconFleet's regions among `held`, by region id.
    func ownRegions(_ held: [MonitoredRegion]) -> [String: RegionIdentity?] {
        var ours: [String: RegionIdentity?] = [:]
        for region in held {
            // A condition CLMonitor gave up is listed but watches nothing: restart it.
            if let id = configuration.region(forIdentifier: region.identifier) {
                ours[id] = region.isUnmonitored ? .some(nil) : region.identity
            }
        }
        return ours
    }

    /// Whether `message`'s diff may be used: it follows the applied version, iOS holds exactly the
    /// applied set, and applied − remove + add is the message's set.
    func diffApplies(_ message: RegionsMessage, target: [Planned], ours: [String: RegionIdentity?]) -> Bool {
        guard let applied = state.version, message.version == applied &+ 1 else { return false }
        var ignored: [RegionApplyOutcome.Failure] = []
        var set: [String: RegionIdentity] = [:]
        for region in Self.plan(state.regions, failures: &ignored) { set[region.id] = region.identity }
        guard ignored.isEmpty, ours.count == set.count, set.allSatisfy({ ours[$0.key] == $0.value }) else { return false }
        for id in message.remove { set[id] = nil }
        for region in message.add {
            guard let identity = RegionIdentity(region) else { return false }
            set[region.id] = identity
        }
        return set.count == target.count && target.allSatisfy { set[$0.id] == $0.identity }
    }

    /// The position of `id` in the plan (regions outside it rank last).
    func rank(of id: String, in plan: [Planned]) -> Int {
        plan.firstIndex { $0.id == id } ?? plan.count
    }

    /// Whether `deadline` (if any) is still ahead after `duration`.
    func before(_ deadline: C.Instant?, after duration: Duration = .zero) -> Bool {
        guard let deadline else { return true }
        return clock.now.advanced(by: duration) < deadline
    }

    /// Sleeps on the clock; false when cancelled.
    func wait(_ duration: Duration) async -> Bool {
        do {
            try await clock.sleep(until: clock.now.advanced(by: duration), tolerance: nil)
            return true
        } catch {
            return false
        }
    }
}

extension RegionApplier where C == ContinuousClock {
    /// An applier on the continuous clock (an app's).
    public init(
        monitor: any RegionMonitor, store: any RegionSyncStore = InMemoryRegionSyncStore(),
        configuration: RegionSyncConfiguration = RegionSyncConfiguration()
    ) {
        self.init(monitor: monitor, store: store, configuration: configuration, clock: ContinuousClock())
    }
}
