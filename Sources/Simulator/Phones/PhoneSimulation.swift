import BeaconKit
import Coordinator
import Foundation
import Planner
import RegionSync
public import Topology
import WireProtocol

/// Phones that follow iOS's rules (`../shared/IOS.md`) walking a venue, without a broker: every
/// strategy is run on the same walks and the same radio, and coverage is counted on arrivals.
///
/// - **The phones** are drawn from a ``PhoneFamily`` (``Configuration/family``): each phone gets its
///   own ``PhoneCondition`` (its radio: path-loss exponent, shadowing and how long it lasts, receiver
///   offset; its iOS: background scan interval, exit delay, wake run times, slots, in-range window),
///   and the venue's beacons their true powers, none of it told to the coordinator.
/// - **Radio**: each tick, a region's beacon is detected when the phone's reading of it
///   (``PhoneRadio``: the beacon's true power at 1 m, the phone's exponent and offset, shadowing
///   correlated in time, a loss per floor) reaches the venue's sensitivity. Every strategy of a
///   phone hears exactly the same readings.
/// - **The phone** is a ``SimulatedPhone``: iOS is RegionSyncTesting's fake monitor, the app is
///   RegionSync itself (applier, event log, report), suspended by default: woken by a region event
///   (and once at launch) for a run time drawn from its condition, hearing beacons only at its
///   background scans meanwhile; while awake it ranges the detected beacons and reports once a
///   second. ``Mode/foreground`` keeps it awake.
/// - **The coordinator** is the production one, one per strategy for all the phones together: the
///   reports go to a `CoordinatorEngine` (its estimator, its reading of enter/exit/ranged/monitored,
///   its planner: `frontier` or `nearest`), on the simulated clock; the `regions` message it
///   publishes reaches the phone ``Configuration/latency`` seconds later (plus
///   ``Configuration/connect`` for a wake's first report) and is applied then if the app still
///   runs, else at its next wake (it is retained). The first-set and clairvoyant baselines are the simulation's own.
/// - **Coverage**: an *arrival* is coming within a region's radius of its beacon; it is covered
///   when the region was held at some moment between the beacon's first detection on that
///   approach (detections less than 30 s apart are one approach) and the arrival.
public struct PhoneSimulation: Sendable {
    /// How the app runs.
    public typealias Mode = SimulatedPhone.Mode

    /// A way of choosing the monitored set.
    public enum Strategy: String, Sendable, Hashable, Codable, CaseIterable {
        /// The coordinator with ``FrontierPlanner`` (the product).
        case frontier
        /// The coordinator with ``NearestPlanner``: the nearest regions by walking distance, with hysteresis.
        case nearest
        /// The coordinator's first set (nearest), never rotated.
        case firstSet = "first-set"
        /// Knows the phone's future walk: at every plan, the regions it will arrive at next, in
        /// that order (the limit of the slots and iOS's wake rules on this venue and radio).
        case clairvoyant

        /// One line on what it is.
        public var summary: String {
            switch self {
            case .frontier: "FrontierPlanner: regions in range first, then quiet regions whose detection wakes the phone in time"
            case .nearest: "NearestPlanner: the nearest regions by walking distance, with hysteresis"
            case .firstSet: "the first plan (nearest), never rotated"
            case .clairvoyant: "knows the future walk: the next regions the phone will arrive at"
            }
        }

        /// The coordinator's planner this strategy runs, when it runs the coordinator.
        var planner: PlannerChoice? {
            switch self {
            case .frontier: .frontier
            case .nearest, .firstSet: .nearest
            case .clairvoyant: nil
            }
        }
    }

    public struct Configuration: Sendable {
        public var clients: Int
        /// Simulated seconds per client.
        public var duration: Double
        public var seed: UInt64
        public var mode: Mode
        public var strategies: [Strategy]
        /// iOS's region slots; each phone's condition says how many are BeaconFleet's.
        public var slots: Int
        /// The phones' radios and iOS timings.
        public var family: PhoneFamily
        /// Seconds from a report to its answer applied while the app is connected: the round trip
        /// to the coordinator over the venue's network, the plan and the apply.
        public var latency: Double
        /// Seconds a woken app takes to connect to the broker (TCP, TLS, MQTT `CONNECT`), added to
        /// ``latency`` for the first report of each wake.
        public var connect: Double
        /// Seconds between reports while awake.
        public var reportInterval: Double
        /// Simulation step, seconds.
        public var tick: Double
        /// Loss per floor (dB).
        public var floorAttenuation: Double
        /// How far ahead the clairvoyant looks, seconds.
        public var foresight: Double

        public init(
            clients: Int = 10, duration: Double = 900, seed: UInt64 = 1, mode: Mode = .suspended,
            strategies: [Strategy] = Strategy.allCases, slots: Int = 20, family: PhoneFamily = .declared, latency: Double = 0.2,
            connect: Double = 0.5, reportInterval: Double = 1, tick: Double = 0.25, floorAttenuation: Double = 15, foresight: Double = 120
        ) {
            self.clients = clients
            self.duration = duration
            self.seed = seed
            self.mode = mode
            self.strategies = strategies
            self.slots = slots
            self.family = family
            self.latency = latency
            self.connect = connect
            self.reportInterval = reportInterval
            self.tick = tick
            self.floorAttenuation = floorAttenuation
            self.foresight = foresight
        }

        func validate() throws(SimulationError) {
            if clients < 1 { throw .invalidParameter(name: "clients", reason: "must be at least 1, got \(clients)") }
            if !(duration > 0) { throw .invalidParameter(name: "duration", reason: "must be positive, got \(duration)") }
            if !(tick > 0) || !(reportInterval >= tick) {
                throw .invalidParameter(name: "tick", reason: "must be positive and at most the report interval")
            }
            if !(latency >= 0) || !(connect >= 0) {
                throw .invalidParameter(name: "round-trip", reason: "the round trip and the connect must be 0 or more seconds")
            }
            if !(family.wakeWindow.lowerBound > 0) { throw .invalidParameter(name: "wake", reason: "must be positive") }
            if family.budget.lowerBound < 1 || family.budget.upperBound > slots {
                throw .invalidParameter(name: "app-regions", reason: "must leave at least one of the \(slots) slots")
            }
            if strategies.isEmpty { throw .invalidParameter(name: "strategies", reason: "name at least one") }
        }
    }

    /// What one strategy achieved over all clients.
    public struct StrategyResult: Sendable, Hashable, Codable {
        public var strategy: Strategy
        public var tally: SimulationTally
    }

    /// One arrival a strategy missed, for analysis outside (``run(misses:)``; `simulate --misses`).
    public struct Miss: Sendable, Hashable {
        public var strategy: Strategy
        public var client: Int
        /// Simulated seconds from the start.
        public var time: Double
        /// The region's index in the topology.
        public var region: Int
        /// Seconds since the app last ran, launched or woken (0: it runs now).
        public var asleepFor: Double
        /// Seconds the app has been running, when it runs (0: asleep): a miss early in a wake is
        /// one the wake's first plan had not reached yet.
        public var awakeFor: Double
        /// Whether the region's beacon was detected on this approach before the arrival: it was in
        /// range, not monitored. Otherwise the phone arrived before it ever detected the beacon.
        public var heard: Bool
        /// Regions the phone monitored at the arrival.
        public var monitored: Int
    }

    /// What one phone, in its condition, met under each strategy.
    public struct PhoneResult: Sendable, Hashable, Codable {
        public var client: Int
        public var condition: PhoneCondition
        /// In the order of ``Report/strategies``.
        public var strategies: [StrategyResult]
    }

    /// The fewest and most slots a run's phones had for BeaconFleet.
    public struct Slots: Sendable, Hashable, Codable {
        public var fewest: Int
        public var most: Int
    }

    /// The result of a run.
    public struct Report: Sendable, Hashable, Codable {
        public var venue: String
        public var mode: Mode
        public var clients: Int
        public var duration: Double
        public var seed: UInt64
        /// BeaconFleet's slots, fewest and most over the phones.
        public var budget: Slots
        /// Over all phones.
        public var strategies: [StrategyResult]
        /// Per phone.
        public var phones: [PhoneResult]
        /// What the (first) coordinator learned of the beacons' powers from the phones' ranging.
        public var learned: LearnedRadio?
    }

    /// The region beacons' powers the coordinator fitted from what the phones ranged
    /// (``Planner/RangedRadio``), against the true ones the simulation drew.
    public struct LearnedRadio: Sendable, Hashable, Codable {
        /// Placed regions, and those with a usable fit.
        public var regions: Int
        public var fitted: Int
        /// Fitted less true power over the fitted regions, dB: mean and standard deviation.
        public var bias: Double
        public var spread: Double
        /// Declared less true power over the same regions, dB.
        public var declaredBias: Double
        public var declaredSpread: Double

        init(fits: [RangedRadio.Fit], truth: [Double]) {
            let placed = zip(fits, truth).filter { $0.0.samples > 0 }
            let used = placed.filter { $0.0.usable }
            func moments(_ values: [Double]) -> (Double, Double) {
                guard !values.isEmpty else { return (0, 0) }
                let mean = values.reduce(0, +) / Double(values.count)
                return (mean, (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot())
            }
            regions = placed.count
            fitted = used.count
            (bias, spread) = moments(used.map { $0.0.power - $0.1 })
            (declaredBias, declaredSpread) = moments(used.map { $0.0.declared - $0.1 })
        }
    }

    public let topology: Topology
    public let configuration: Configuration
    public let graph: WalkGraph
    /// The coordinator's venue (topology, estimator, planner) per planner the strategies use.
    private let venues: [PlannerChoice: CoordinatorVenue]

    public init(topology: Topology, configuration: Configuration = Configuration()) throws(SimulationError) {
        try configuration.validate()
        self.topology = topology
        self.configuration = configuration
        self.graph = try WalkGraph(topology: topology)
        var venues: [PlannerChoice: CoordinatorVenue] = [:]
        for choice in Set(configuration.strategies.compactMap(\.planner)) {
            do {
                venues[choice] = try CoordinatorVenue(topology: topology, budget: configuration.family.budget.upperBound, planner: choice)
            } catch {
                throw .invalidParameter(name: "estimator", reason: error.description)
            }
        }
        self.venues = venues
    }

    /// Runs every client (random walkers from the seed) and sums the tallies per strategy;
    /// `misses` sees every arrival a strategy missed.
    public func run(misses: ((Miss) -> Void)? = nil) async -> Report {
        let walkers = (0..<configuration.clients).map { client in
            Walker(graph: graph, simulationSeed: configuration.seed, client: client)
        }
        return await run(walkers: walkers, misses: misses)
    }

    /// Runs the given walkers (scripted ones in tests), all at once, and sums the tallies per strategy.
    public func run(walkers: [Walker], misses: ((Miss) -> Void)? = nil) async -> Report {
        let (phones, learned) = await simulate(walkers: walkers, misses: misses)
        var totals = [SimulationTally](repeating: SimulationTally(), count: configuration.strategies.count)
        for phone in phones {
            for (index, result) in phone.strategies.enumerated() { totals[index].merge(result.tally) }
        }
        let budgets = phones.map(\.condition.budget)
        return Report(
            venue: topology.name, mode: configuration.mode, clients: walkers.count, duration: configuration.duration,
            seed: configuration.seed, budget: Slots(fewest: budgets.min() ?? 0, most: budgets.max() ?? 0),
            strategies: zip(configuration.strategies, totals).map { StrategyResult(strategy: $0, tally: $1) }, phones: phones,
            learned: learned)
    }

    // MARK: - The phones

    /// One strategy's phone on its walk: the phone, the coordinator's state for it, and the tally.
    private struct Lane {
        var phone: SimulatedPhone
        var coordinator: PlanningState
        var coverage = ArrivalCoverage()
        var tally = SimulationTally()
    }

    /// One walker and its phone per strategy.
    private struct Walk {
        var walker: Walker
        var radio: PhoneRadio
        var lanes: [Lane]
    }

    private func simulate(walkers: [Walker], misses: ((Miss) -> Void)?) async -> (phones: [PhoneResult], learned: LearnedRadio?) {
        let venueRadio = BeaconRadio(
            topology: topology, seed: configuration.seed, floorAttenuation: configuration.floorAttenuation, family: configuration.family)
        // One coordinator per strategy, shared by every phone (what it learns, it learns from all).
        let engines = configuration.strategies.map { strategy in
            strategy.planner.flatMap { venues[$0] }.map { CoordinatorEngine(venue: $0) }
        }
        var walks: [Walk] = []
        for (client, walker) in walkers.enumerated() {
            let condition = configuration.family.draw(seed: configuration.seed, client: client)
            var lanes: [Lane] = []
            for (index, strategy) in configuration.strategies.enumerated() {
                let phone = await SimulatedPhone(
                    mode: configuration.mode, slots: configuration.slots, condition: condition,
                    reportInterval: configuration.reportInterval,
                    seed: configuration.seed, client: client)
                lanes.append(Lane(phone: phone, coordinator: PlanningState(strategy: strategy, engine: engines[index])))
            }
            walks.append(
                Walk(
                    walker: walker, radio: PhoneRadio(radio: venueRadio, condition: condition, client: client, tick: configuration.tick),
                    lanes: lanes))
        }
        let ticks = Int((configuration.duration / configuration.tick).rounded(.down))

        for tick in 0...ticks {
            // A long walk is minutes of work on a shared thread pool: let other tasks run between ticks.
            await Task.yield()
            let now = Double(tick) * configuration.tick
            for client in walks.indices {
                var walk = walks[client]
                if tick > 0 { walk.walker.advance(by: configuration.tick) }
                let truth = walk.walker.position
                let heard = walk.radio.readings(at: truth, tick: tick)
                let detected = heard.map(\.region)
                let beacons = heard.compactMap { topology.regions[$0.region].identity.beacon }
                let ranged = heard.map { reading in
                    let identity = topology.regions[reading.region].identity
                    return RangedBeacon(
                        uuid: identity.uuidString, major: identity.major ?? 0, minor: identity.minor ?? 0, rssi: reading.rssi)
                }
                let withinNow = venueRadio.regionsWithin(truth)

                for index in walk.lanes.indices {
                    var lane = walk.lanes[index]
                    await lane.phone.detect(beacons, at: now)
                    let held = lane.phone.held
                    let missed = lane.coverage.step(
                        now: now, detected: detected, withinNow: withinNow, counting: tick > 0, tally: &lane.tally,
                        id: { topology.regions[$0].id }, monitored: { held.contains(topology.regions[$0].id) })
                    if let misses {
                        let asleepFor = max(0, now - lane.phone.awakeUntil)
                        let awakeFor = asleepFor > 0 ? 0 : now - lane.phone.awakeSince
                        for miss in missed {
                            misses(
                                Miss(
                                    strategy: configuration.strategies[index], client: client, time: now, region: miss.region,
                                    asleepFor: asleepFor, awakeFor: awakeFor, heard: miss.heard, monitored: held.count))
                        }
                    }
                    if await lane.phone.applyDue(at: now) != nil { lane.tally.plans += 1 }
                    if let report = await lane.phone.report(at: now, ranged: ranged),
                        let message = plan(for: report, client: client, lane: &lane, walker: walk.walker, radio: venueRadio, now: now)
                    {
                        // The answer arrives a round trip later (the first of a wake after the
                        // connect too) and is applied then if the app still runs; else at its next wake.
                        let first = now - lane.phone.awakeSince < configuration.reportInterval
                        let arrives = now + configuration.latency + (first ? configuration.connect : 0)
                        lane.phone.deliver(message, at: arrives)
                        if arrives < now + configuration.tick, await lane.phone.applyDue(at: arrives) != nil { lane.tally.plans += 1 }
                    }
                    walk.lanes[index] = lane
                }
                walks[client] = walk
            }
        }
        let learned = engines.lazy.compactMap { $0 }.first.map {
            LearnedRadio(fits: $0.calibrationSnapshot.ranged, truth: venueRadio.powers)
        }
        let phones = walks.enumerated().map { client, walk in
            let results = zip(configuration.strategies, walk.lanes).map { strategy, lane in
                var tally = lane.tally
                tally.metresWalked = walk.walker.distanceWalked
                tally.wakes = lane.phone.wakes
                tally.added = lane.phone.started
                tally.removed = lane.phone.stopped
                return StrategyResult(strategy: strategy, tally: tally)
            }
            return PhoneResult(client: client, condition: walk.radio.condition, strategies: results)
        }
        return (phones, learned)
    }

    /// What plans one lane's phone: the production coordinator, or the clairvoyant.
    private struct PlanningState {
        var strategy: Strategy
        /// The coordinator (every strategy but the clairvoyant).
        var engine: CoordinatorEngine?
        var version: UInt64 = 0
        /// The clairvoyant's set last published (topology indices, in priority order).
        var regions: [Int] = []
    }

    /// Hands `report` to the lane's coordinator (or the clairvoyant) at `now`; returns the
    /// `regions` message published for the phone, if any.
    private func plan(
        for report: ClientReport, client: Int, lane: inout Lane, walker: Walker, radio: BeaconRadio, now: Double
    ) -> RegionsMessage? {
        var state = lane.coordinator
        defer { lane.coordinator = state }
        if state.strategy == .firstSet, state.version > 0 { return nil }
        let time = lane.phone.epoch.addingTimeInterval(now)
        if let engine = state.engine {
            let millis = Int64((time.timeIntervalSince1970 * 1000).rounded())
            let id = "sim-phone-\(client)"
            try? engine.apply(.report(client: id, report), now: millis)
            engine.recalibrateIfDue(now: millis)  // as the coordinator's housekeeping tick does
            engine.flush(now: millis)
            var published: RegionsMessage?
            for case .regions(id, let message) in engine.take().outputs { published = message }
            if let published { state.version = published.version }
            return published
        }
        // The clairvoyant: the regions the walk reaches next.
        let budget = lane.phone.condition.budget
        let regions = foresee(walker, budget: budget, radio: radio)
        guard regions != state.regions else { return nil }
        let old = Set(state.regions)
        let new = Set(regions)
        state.version += 1
        state.regions = regions
        return RegionsMessage(
            version: state.version, budget: budget, regions: regions.map { topology.regions[$0].reference },
            add: regions.filter { !old.contains($0) }.map { topology.regions[$0].reference },
            remove: old.subtracting(new).sorted().map { topology.regions[$0].id }, position: nil,
            reason: state.version == 1 ? "initial" : "moved", time: time)
    }

    /// The clairvoyant's set: pinned regions, then the regions the walker will arrive at next
    /// (within `foresight` seconds), in the order of arrival, then the nearest by straight line.
    private func foresee(_ walker: Walker, budget: Int, radio: BeaconRadio) -> [Int] {
        var result = Array(topology.pinnedRegions.prefix(budget))
        var seen = Set(result)
        var future = walker
        var elapsed = 0.0
        while elapsed < configuration.foresight, result.count < budget {
            for region in radio.regionsWithin(future.position).sorted() where seen.insert(region).inserted && result.count < budget {
                result.append(region)
            }
            future.advance(by: 0.5)
            elapsed += 0.5
        }
        return result
    }
}
