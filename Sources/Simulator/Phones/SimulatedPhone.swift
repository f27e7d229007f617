public import BeaconKit
public import Foundation
public import RegionSync
public import RegionSyncTesting
public import WireProtocol

/// One iPhone running an app with `RegionSync`, for simulations: iOS is `RegionSyncTesting`'s
/// ``FakeRegionMonitor`` (the rules of `../shared/IOS.md`: 20 shared slots, enter on the first
/// detection, exit after the condition's delay since the last, no enter for a region added in
/// range, the 0.1 s stop/start gap), the app is the library itself (``RegionApplier``,
/// ``RegionEventLog``, ``RegionReportBuilder``), and time is a ``VirtualClock`` the simulation moves.
///
/// The app runs only while awake: once at launch, and for a run time drawn from its
/// ``PhoneCondition/wakeWindow`` after every region event when ``Mode/suspended`` (each event runs
/// it again); asleep, it hears beacons only at its background scans. Awake, it ranges the beacons
/// it detects, reports every ``reportInterval`` seconds, and applies the newest `regions`
/// message that has reached it (a retained message waits for the next wake). Asleep it does
/// nothing: it cannot range, report or advertise.
///
/// The driver calls, per step: ``detect(_:at:)`` with what the radio delivered, then
/// ``applyDue(at:)``, then ``report(at:ranged:)``; messages arrive with ``deliver(_:at:)``.
public struct SimulatedPhone: Sendable {
    /// How the app runs.
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        /// Woken only by region events, about 10 s each (the case BeaconFleet exists for).
        case suspended
        /// Awake and reporting every second throughout.
        case foreground
    }

    public let mode: Mode
    /// Its radio and iOS timings: each wake's run time, the background scan interval, the exit
    /// delay, the in-range window, its slots.
    public let condition: PhoneCondition
    /// Seconds between reports while awake.
    public let reportInterval: Double
    /// iOS.
    public let monitor: FakeRegionMonitor<VirtualClock>
    /// The app's RegionSync.
    public let applier: RegionApplier<VirtualClock>
    let log: RegionEventLog
    let builder: RegionReportBuilder
    let clock: VirtualClock
    /// Report times are this date plus the simulated seconds.
    let epoch: Date
    /// Draws each wake's run time (addressed by phone and wake).
    let noise: CounterNoise
    let client: Int
    /// When a suspended phone's background scanner next listens (it hears nothing in between).
    private var nextScan: Double

    /// When the app stops running (`.infinity` in the foreground).
    public private(set) var awakeUntil: Double
    /// When the app last started running (launched, or woken from suspension): its connection to
    /// the broker is made from then on.
    public private(set) var awakeSince = 0.0
    private var nextReport = 0.0
    /// The newest `regions` message and when it reaches the phone.
    private var inbox: (at: Double, message: RegionsMessage)?
    /// Events of ``monitor`` already read.
    private var eventsRead = 0
    /// BeaconFleet's regions iOS holds now, by region id.
    public private(set) var held: Set<String> = []
    /// Region events that ran the app (wakes, counted per event), and regions started and stopped.
    public private(set) var wakes = 0
    public private(set) var started = 0
    public private(set) var stopped = 0
    /// Whether a message has been applied yet (its starts are set-up, not churn).
    public private(set) var applied = false

    /// A phone whose app has `appRegions` regions of its own (they take slots, never BeaconFleet's),
    /// with the prompt iOS of IOS.md's rules: every step scanned, exit 30 s after the last
    /// detection, `wakeDuration` seconds per wake.
    public init(
        mode: Mode = .suspended, slots: Int = 20, appRegions: Int = 0, wakeDuration: Double = 10, reportInterval: Double = 1,
        epoch: Date = Date(timeIntervalSince1970: 1_767_225_600)
    ) async {
        await self.init(
            mode: mode, slots: slots, condition: PhoneCondition(wakeWindow: wakeDuration...wakeDuration, budget: slots - appRegions),
            reportInterval: reportInterval, epoch: epoch)
    }

    /// A phone in `condition` (its slots are BeaconFleet's of iOS's `slots`: the app's own regions
    /// take the rest). `seed` and `client` address the draws of its wakes' run times and the phase of
    /// its background scans.
    public init(
        mode: Mode = .suspended, slots: Int = 20, condition: PhoneCondition, reportInterval: Double = 1,
        epoch: Date = Date(timeIntervalSince1970: 1_767_225_600), seed: UInt64 = 1, client: Int = 0
    ) async {
        self.mode = mode
        self.condition = condition
        self.reportInterval = reportInterval
        self.epoch = epoch
        self.noise = CounterNoise(seed: seed)
        self.client = client
        let clock = VirtualClock()
        let configuration = RegionSyncConfiguration(slotLimit: slots)
        self.clock = clock
        monitor = FakeRegionMonitor(
            options: .init(slotLimit: slots, exitDelay: .seconds(condition.exitDelay), inRangeWindow: .seconds(condition.inRangeWindow)),
            clock: clock)
        applier = RegionApplier(monitor: monitor, configuration: configuration, clock: clock)
        log = RegionEventLog(configuration: configuration)
        builder = RegionReportBuilder(configuration: configuration)
        nextScan = condition.scanInterval * noise.uniform(UInt64(client), 0x5CA4, 0)
        awakeUntil = 0
        awakeUntil = mode == .foreground ? .infinity : wakeWindow(0)  // launched, awake once
        for index in 0..<max(0, slots - condition.budget) { await monitor.addAppRegion(identifier: "app-geofence-\(index)") }
    }

    /// The run time of wake number `index`, drawn from the condition's range.
    private func wakeWindow(_ index: Int) -> Double {
        let range = condition.wakeWindow
        guard range.upperBound > range.lowerBound else { return range.lowerBound }
        return range.lowerBound + (range.upperBound - range.lowerBound) * noise.uniform(UInt64(client), UInt64(index), 0x3A4E)
    }

    /// Whether the app runs at `time`.
    public func isAwake(at time: Double) -> Bool { time < awakeUntil }

    /// The radio delivered `beacons` at `time`: iOS's enters and exits fire, each waking the app
    /// (but the share ``PhoneCondition/lostEvents`` iOS never delivers).
    /// A suspended phone hears them only at its background scans (every
    /// ``PhoneCondition/scanInterval`` seconds); a running one at every step. Returns the events
    /// iOS delivered (not the states the app then asks for at a wake's start, which it logs).
    @discardableResult
    public mutating func detect(_ beacons: [BeaconIdentity], at time: Double) async -> [RegionMonitorEvent] {
        clock.advance(to: instant(time))
        var scanned = beacons
        if condition.scanInterval > 0, !isAwake(at: time) {
            if time + 1e-9 >= nextScan {
                nextScan = time + condition.scanInterval
            } else {
                scanned = []
            }
        }
        await monitor.detect(scanned, at: clock.now)
        let delivered = await monitor.delivered
        guard delivered.count > eventsRead else { return [] }
        var events: [RegionMonitorEvent] = []
        var woke = false
        for (index, event) in delivered.enumerated().dropFirst(eventsRead) {
            if isLost(event, index: index) { continue }
            events.append(event)
            await log.record(event, at: date(time))
            // A crossing runs the app; a state is one only from `CLMonitor` (the classic API's
            // states answer the app's own `requestState`, while it runs).
            switch event {
            case .enter, .exit: woke = true
            case .state(_, .inside), .state(_, .outside): woke = woke || monitor.options.flavour == .monitor
            case .state, .failure: break
            }
        }
        let started = woke && mode == .suspended && !isAwake(at: time)
        if woke, mode == .suspended {
            wakes += 1
            if started {
                nextReport = time
                awakeSince = time
            }
            awakeUntil = max(awakeUntil, time + wakeWindow(wakes))
        }
        eventsRead = delivered.count
        if started { await askStates(at: time) }
        return events
    }

    /// A wake's start, as `RegionSyncSession` does it: the app asks iOS the state of every region
    /// it holds and logs the answers (only a state that differs from what it last knew becomes an
    /// event of its next report: the enter or exit iOS never delivered).
    private mutating func askStates(at time: Double) async {
        await applier.requestStates()
        let delivered = await monitor.delivered
        for event in delivered.dropFirst(eventsRead) { await log.record(event, at: date(time)) }
        eventsRead = delivered.count
    }

    /// Whether iOS never delivers the `index`-th event (a share ``PhoneCondition/lostEvents`` of
    /// enters and exits, drawn per event): the app neither wakes for it nor logs it.
    private func isLost(_ event: RegionMonitorEvent, index: Int) -> Bool {
        guard condition.lostEvents > 0 else { return false }
        switch event {
        case .enter, .exit: return noise.uniform(UInt64(client), UInt64(index), 0x1057) < condition.lostEvents
        case .state, .failure: return false
        }
    }

    /// A `regions` message reaches the phone at `time` (it is retained: the newest one waits for
    /// the app to run). Applied by ``applyDue(at:)`` at `time` itself when the app runs then, as
    /// RegionSync applies an answer on arrival.
    public mutating func deliver(_ message: RegionsMessage, at time: Double) {
        if let inbox, inbox.message.version > message.version { return }
        inbox = (time, message)
    }

    /// Applies the newest message that has reached the phone, when the app runs at `time`.
    public mutating func applyDue(at time: Double) async -> RegionApplyOutcome? {
        guard isAwake(at: time), let pending = inbox, pending.at <= time else { return nil }
        inbox = nil
        clock.advance(to: instant(time))
        let outcome = await applier.apply(pending.message)
        if outcome.path != .ignored {
            if applied {
                started += outcome.started.count
                stopped += outcome.stopped.count
            }
            applied = true
            held = Set(outcome.held)
            await log.keepOnly(held)
        }
        return outcome
    }

    /// The app's report when it runs at `time` and one is due: `ranged` (what it ranged since the
    /// last), the events since the last report, what iOS holds, the budget and the applied version.
    public mutating func report(at time: Double, ranged: [RangedBeacon], advertising: AdvertisedIdentity? = nil) async -> ClientReport? {
        guard isAwake(at: time), time >= nextReport - 1e-9 else { return nil }
        nextReport = time + reportInterval
        let events = await log.takeEvents()
        return await builder.report(
            from: monitor, ranged: ranged, events: events, version: await applier.appliedVersion, advertising: advertising,
            context: PhoneContext(foreground: mode == .foreground), time: date(time))
    }

    private func instant(_ time: Double) -> VirtualClock.Instant { VirtualClock.Instant(offset: .seconds(time)) }
    private func date(_ time: Double) -> Date { epoch.addingTimeInterval(time) }
}
