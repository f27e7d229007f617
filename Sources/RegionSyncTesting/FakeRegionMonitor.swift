public import BeaconKit
public import RegionSync

/// A ``RegionMonitor`` that behaves as iOS does (IOS.md), for tests and simulations:
///
/// - 20 slots (``Options/slotLimit``) shared with the app's own regions (``addAppRegion(identifier:identity:)``);
///   a start past them is refused asynchronously (a failure event, code 5) or silently
///   (``Options/overLimit``), and the region is not held;
/// - a start within 0.1 s of a stop of the same identifier (or of any, ``Options/restartGapCoversEveryRegion``)
///   is refused with code 5;
/// - classic flavour: a start of an identifier already monitored replaces it, resetting its state,
///   and fires a second enter when its beacon is in range ("double enter on re-add");
///   `CLMonitor` flavour: such a start is silently ignored, states arrive as `.state` events, and
///   ``giveUp(identifier:)`` makes a condition `.unmonitored` (it stays listed and holds its slot);
/// - a region added while its beacon is in range fires no enter: only ``requestState(identifier:)`` tells;
/// - enter on the first detection while outside; exit ``Options/exitDelay`` (30 s) after the last
///   detection, on the fake's own clock, as the simulation reports detections with ``detect(_:at:)``
///   and moves time with ``advance(to:)`` (every call also brings exits up to the clock's now).
public actor FakeRegionMonitor<C: Clock>: RegionMonitor where C.Duration == Duration {
    /// How the fake behaves where iOS versions and devices differ.
    public struct Options: Sendable, Hashable {
        /// Which iOS API the fake plays.
        public enum Flavour: String, Sendable, Hashable, CaseIterable {
            /// `CLLocationManager`: enter/exit events, re-add replaces.
            case locationManager
            /// `CLMonitor`: state events, add over a live identifier ignored, `.unmonitored`.
            case monitor
        }

        /// What a start past the slot limit does.
        public enum OverLimit: String, Sendable, Hashable, CaseIterable {
            /// A failure event with code 5.
            case failureEvent
            /// Nothing at all: the region is simply not held.
            case silent
        }

        public var flavour: Flavour
        public var overLimit: OverLimit
        /// Regions the app may monitor, all kinds together.
        public var slotLimit: Int
        /// A start this soon after a stop is refused.
        public var restartGap: Duration
        /// Whether the gap follows a stop of any region (stricter) or only of the same identifier.
        public var restartGapCoversEveryRegion: Bool
        /// The time from the last detection to the exit.
        public var exitDelay: Duration
        /// A region started within this time of its beacon's last detection starts *inside*
        /// (the beacon is in range now: no enter, only ``requestState(identifier:)`` tells);
        /// one heard longer ago starts *outside* and enters at its next detection.
        public var inRangeWindow: Duration

        public init(
            flavour: Flavour = .locationManager, overLimit: OverLimit = .failureEvent, slotLimit: Int = 20,
            restartGap: Duration = .milliseconds(100), restartGapCoversEveryRegion: Bool = false, exitDelay: Duration = .seconds(30),
            inRangeWindow: Duration = .seconds(1)
        ) {
            self.inRangeWindow = inRangeWindow
            self.flavour = flavour
            self.overLimit = overLimit
            self.slotLimit = slotLimit
            self.restartGap = restartGap
            self.restartGapCoversEveryRegion = restartGapCoversEveryRegion
            self.exitDelay = exitDelay
        }
    }

    /// A call the fake received, in order.
    public enum Call: Sendable, Hashable {
        case start(BeaconRegion)
        case stop(String)
        case requestState(String)

        /// The identifier the call names.
        public var identifier: String {
            switch self {
            case .start(let region): region.identifier
            case .stop(let identifier), .requestState(let identifier): identifier
            }
        }
    }

    /// Why a start was refused.
    public enum Refusal: Sendable, Hashable {
        case overLimit(String)
        case tooSoonAfterStop(String)
    }

    struct Entry {
        var identity: RegionIdentity?
        var state: RegionState
        var lastDetection: C.Instant?
    }

    public nonisolated let options: Options
    public nonisolated let clock: C
    public nonisolated let events: AsyncStream<RegionMonitorEvent>
    private let continuation: AsyncStream<RegionMonitorEvent>.Continuation
    private var order: [String] = []
    private var entries: [String: Entry] = [:]
    private var stops: [String: C.Instant] = [:]
    private var lastStop: C.Instant?
    private var lastSeen: [BeaconIdentity: C.Instant] = [:]
    private var now: C.Instant

    /// Every start, stop and state request, in order (the app's own regions excluded).
    public private(set) var calls: [Call] = []
    /// Every start refused, in order.
    public private(set) var refusals: [Refusal] = []
    /// Starts of an identifier already monitored with the same identity (never needed).
    public private(set) var unchangedReAdds: [String] = []
    /// The most regions held at once.
    public private(set) var mostHeld = 0
    /// Every event delivered, in order.
    public private(set) var delivered: [RegionMonitorEvent] = []

    public init(options: Options = Options(), clock: C) {
        self.options = options
        self.clock = clock
        self.now = clock.now
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    // MARK: RegionMonitor

    public func startMonitoring(_ region: BeaconRegion) {
        catchUp()
        calls.append(.start(region))
        let id = region.identifier
        let stoppedAt = options.restartGapCoversEveryRegion ? lastStop : stops[id]
        if let stoppedAt, stoppedAt.duration(to: now) < options.restartGap {
            refusals.append(.tooSoonAfterStop(id))
            fail(id, "started within \(options.restartGap) of a stop")
            return
        }
        if let existing = entries[id] {
            if existing.identity == region.identity { unchangedReAdds.append(id) }
            guard options.flavour == .locationManager else { return }  // CLMonitor: ignored
            let seen = lastDetection(of: region.identity)
            entries[id] = Entry(identity: region.identity, state: seen == nil ? .outside : .inside, lastDetection: seen)
            if seen != nil { emit(.enter(identifier: id)) }  // the double enter on re-add
            return
        }
        guard order.count < options.slotLimit else {
            refusals.append(.overLimit(id))
            if options.overLimit == .failureEvent {
                fail(id, "more than \(options.slotLimit) regions")
            }
            return
        }
        insert(id, identity: region.identity)
    }

    public func stopMonitoring(identifier: String) {
        catchUp()
        calls.append(.stop(identifier))
        guard entries.removeValue(forKey: identifier) != nil else { return }
        order.removeAll { $0 == identifier }
        stops[identifier] = now
        lastStop = now
    }

    public func requestState(identifier: String) {
        catchUp()
        calls.append(.requestState(identifier))
        guard let entry = entries[identifier] else { return }
        emit(.state(identifier: identifier, entry.state))
    }

    public func monitoredRegions() -> [MonitoredRegion] {
        catchUp()
        return order.map {
            MonitoredRegion(identifier: $0, identity: entries[$0]?.identity, isUnmonitored: entries[$0]?.state == .unmonitored)
        }
    }

    // MARK: The world

    /// The app's own region (or another SDK's): takes a slot; not in ``calls``. `nil` identity
    /// for a circular geofence.
    public func addAppRegion(identifier: String, identity: RegionIdentity? = nil) {
        catchUp()
        guard entries[identifier] == nil, order.count < options.slotLimit else { return }
        insert(identifier, identity: identity)
    }

    /// The app removes one of its own regions; not in ``calls``.
    public func removeAppRegion(identifier: String) {
        guard entries.removeValue(forKey: identifier) != nil else { return }
        order.removeAll { $0 == identifier }
    }

    /// The phone detected `beacons` at `time`: regions outside whose beacon is among them enter;
    /// exits due before `time` fire first.
    public func detect(_ beacons: [BeaconIdentity], at time: C.Instant) {
        advance(to: time)
        for beacon in beacons { lastSeen[beacon] = now }
        for id in order {
            guard var entry = entries[id], let identity = entry.identity, entry.state != .unmonitored,
                beacons.contains(where: identity.matches)
            else { continue }
            entry.lastDetection = now
            let entering = entry.state != .inside
            entry.state = .inside
            entries[id] = entry
            if entering { emit(options.flavour == .monitor ? .state(identifier: id, .inside) : .enter(identifier: id)) }
        }
    }

    /// Moves the fake's time to `time` (if later), firing the exits due by then.
    public func advance(to time: C.Instant) {
        if now < time { now = time }
        for id in order {
            guard var entry = entries[id], entry.state == .inside, let last = entry.lastDetection,
                last.duration(to: now) >= options.exitDelay
            else { continue }
            entry.state = .outside
            entries[id] = entry
            emit(options.flavour == .monitor ? .state(identifier: id, .outside) : .exit(identifier: id))
        }
    }

    /// `CLMonitor` gives the condition up: `.unmonitored`, still listed, silent from now on.
    public func giveUp(identifier: String) {
        guard var entry = entries[identifier] else { return }
        entry.state = .unmonitored
        entries[identifier] = entry
        emit(.state(identifier: identifier, .unmonitored))
    }

    /// The state of `identifier` now (`nil` when not monitored), without an event.
    public func state(of identifier: String) -> RegionState? {
        catchUp()
        return entries[identifier]?.state
    }

    /// Ends ``events``.
    public func finish() {
        continuation.finish()
    }

    // MARK: Internals

    private func catchUp() {
        advance(to: clock.now)
    }

    private func insert(_ id: String, identity: RegionIdentity?) {
        let seen = identity.flatMap(lastDetection(of:))
        // Added while its beacon is in range: inside, but no enter (only requestState tells).
        entries[id] = Entry(identity: identity, state: seen == nil ? .outside : .inside, lastDetection: seen)
        order.append(id)
        mostHeld = max(mostHeld, order.count)
    }

    /// The last detection of a beacon `identity` matches, when its beacon is in range now
    /// (within ``Options/inRangeWindow``).
    private func lastDetection(of identity: RegionIdentity) -> C.Instant? {
        let last = lastSeen.filter { identity.matches($0.key) }.map(\.value).max()
        guard let last, last.duration(to: now) <= options.inRangeWindow else { return nil }
        return last
    }

    /// Refuses a start the way iOS does: a failure event with `regionMonitoringFailure` (code 5).
    private func fail(_ id: String, _ message: String) {
        emit(.failure(identifier: id, RegionMonitorError(code: RegionMonitorError.regionMonitoringFailure, message: message)))
    }

    private func emit(_ event: RegionMonitorEvent) {
        delivered.append(event)
        continuation.yield(event)
    }
}
