public import Foundation
public import WireProtocol

/// Collects what iOS told the app about BeaconFleet's regions between reports, as the report's
/// `events`: one enter when a region goes inside, one exit when it goes outside.
///
/// Enter and exit events, and states (asked for with `requestState`, or `CLMonitor`'s events),
/// are compared with a baseline of the last known state per region, so a state iOS re-delivers
/// (at launch, at unlock, a second enter after a re-add) is not reported twice; a region added
/// while its beacon is in range is reported as an enter when its state comes back `inside`.
/// Events about identifiers that are not BeaconFleet's are ignored.
public actor RegionEventLog {
    public nonisolated let configuration: RegionSyncConfiguration
    private var baseline: [String: RegionState] = [:]
    private var pending: [RegionEvent] = []
    private var failed: [String: RegionMonitorError] = [:]
    /// Events recorded so far, and the count when each region last heard from iOS (see ``answered(_:since:)``).
    private var recorded: UInt64 = 0
    private var lastHeard: [String: UInt64] = [:]

    /// A log whose baseline has `inside` (the region ids last known inside, e.g. from ``RegionSyncState/inside``).
    public init(configuration: RegionSyncConfiguration = RegionSyncConfiguration(), inside: [String] = []) {
        self.configuration = configuration
        for id in inside { baseline[id] = .inside }
    }

    /// Records one event at `time`.
    public func record(_ event: RegionMonitorEvent, at time: Date = Date()) {
        guard let id = configuration.region(forIdentifier: event.identifier) else { return }
        recorded += 1
        lastHeard[id] = recorded
        switch event {
        case .enter, .state(_, .inside):
            if baseline[id] != .inside { pending.append(RegionEvent(type: .enter, region: id, time: time)) }
            baseline[id] = .inside
        case .exit:
            if baseline[id] != .outside { pending.append(RegionEvent(type: .exit, region: id, time: time)) }
            baseline[id] = .outside
        case .state(_, .outside):
            if baseline[id] == .inside { pending.append(RegionEvent(type: .exit, region: id, time: time)) }
            baseline[id] = .outside
        case .state(_, .unknown):
            break
        case .state(_, .unmonitored):
            baseline[id] = nil
        case .failure(_, let error):
            failed[id] = error
        }
    }

    /// Records every event of `events` as it arrives, until the stream ends or the task is cancelled.
    public func consume(_ events: AsyncStream<RegionMonitorEvent>) async {
        for await event in events { record(event, at: Date()) }
    }

    /// The events since the last call, oldest first; the log forgets them.
    public func takeEvents() -> [RegionEvent] {
        defer { pending.removeAll() }
        return pending
    }

    /// Puts `events` back in front (a report carrying them could not be published).
    public func restore(_ events: [RegionEvent]) {
        pending.insert(contentsOf: events, at: 0)
    }

    /// The failures iOS reported since the last call, by region id; the log forgets them.
    public func takeFailures() -> [String: RegionMonitorError] {
        defer { failed.removeAll() }
        return failed
    }

    /// Where the log is now, to ask later what iOS said since (``answered(_:since:)``).
    public var mark: UInt64 { recorded }

    /// Whether iOS has said something (a state, an enter or exit, a failure) about each of
    /// `regions` since `mark`: the answers to `requestState` for regions just added.
    public func answered(_ regions: some Sequence<String>, since mark: UInt64) -> Bool {
        regions.allSatisfy { (lastHeard[$0] ?? 0) > mark }
    }

    /// The region ids known inside now, sorted.
    public var inside: [String] { baseline.filter { $0.value == .inside }.map(\.key).sorted() }

    /// Forgets the state of regions no longer monitored, so one added again reports its state afresh.
    public func keepOnly(_ regions: some Sequence<String>) {
        let keep = Set(regions)
        baseline = baseline.filter { keep.contains($0.key) }
        lastHeard = lastHeard.filter { keep.contains($0.key) }
    }
}
