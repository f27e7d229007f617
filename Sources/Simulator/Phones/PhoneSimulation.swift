import BeaconKit
import Foundation
import Planner
import RegionSync
public import Topology
import WireProtocol

/// Phones that follow iOS's rules (`../shared/IOS.md`) walking a venue, without a broker: every
/// strategy is run on the same walk and the same radio, and coverage is counted on arrivals.
///
/// - **Radio**: each tick, a region's beacon is detected when its reading (its `power` at 1 m, the
///   venue's path-loss exponent, log-normal body shadowing, a loss per floor) reaches the venue's
///   sensitivity; the noise of (client, tick, beacon) is the same for every strategy.
/// - **The phone** is a ``SimulatedPhone``: iOS is RegionSyncTesting's fake monitor, the app is
///   RegionSync itself (applier, event log, report), suspended by default: woken for
///   ``Configuration/wakeDuration`` seconds by a region event (and once at launch); while awake it
///   ranges the detected beacons and reports once a second. ``Mode/foreground`` keeps it awake.
/// - **The coordinator**, per strategy, knows only the reports: it estimates the position from
///   the ranged beacons (the production estimator), keeps the regions reported inside and those
///   ranged lately, plans, and publishes a `regions` message when the set changes; the phone
///   receives it ``Configuration/latency`` seconds later, or at its next wake (it is retained).
/// - **Coverage**: an *arrival* is coming within a region's radius of its beacon; it is covered
///   when the region was held at some moment between the beacon's first detection on that
///   approach (detections less than 30 s apart are one approach) and the arrival.
public struct PhoneSimulation: Sendable {
    /// How the app runs.
    public typealias Mode = SimulatedPhone.Mode

    /// A way of choosing the monitored set.
    public enum Strategy: String, Sendable, Hashable, Codable, CaseIterable {
        /// ``FrontierPlanner`` (the product).
        case frontier
        /// ``RegionPlanner``: the nearest regions by walking distance, with hysteresis.
        case nearest
        /// The first set, never rotated.
        case firstSet = "first-set"
        /// Knows the phone's future walk: at every plan, the regions it will arrive at next, in
        /// that order (the limit of the slots and iOS's wake rules on this venue and radio).
        case clairvoyant

        /// One line on what it is.
        public var summary: String {
            switch self {
            case .frontier: "FrontierPlanner: regions in range first, then quiet regions whose detection wakes the phone in time"
            case .nearest: "RegionPlanner: the nearest regions by walking distance, with hysteresis"
            case .firstSet: "the first plan (nearest), never rotated"
            case .clairvoyant: "knows the future walk: the next regions the phone will arrive at"
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
        /// Where the coordinator's position comes from: ranging (the production estimator on what
        /// the app ranged while awake) or the truth.
        public var useTruth: Bool
        /// iOS's region slots, and those the app's own regions take (the phone's budget is the rest).
        public var slots: Int
        public var appRegions: Int
        /// Seconds of run time per wake.
        public var wakeDuration: Double
        /// Seconds from a report to the set applied (connect, report, plan, publish, apply).
        public var latency: Double
        /// Seconds between reports while awake.
        public var reportInterval: Double
        /// Simulation step, seconds.
        public var tick: Double
        /// Body shadowing of one reading (dB; `nil`: the venue's, ``RadioEnvironment/shadowing``) and loss per floor (dB).
        public var shadowingSigma: Double?
        public var floorAttenuation: Double
        /// Readings kept per report (the strongest).
        public var maximumReadings: Int
        /// How far ahead the clairvoyant looks, seconds.
        public var foresight: Double

        public init(
            clients: Int = 10, duration: Double = 900, seed: UInt64 = 1, mode: Mode = .suspended,
            strategies: [Strategy] = Strategy.allCases,
            useTruth: Bool = false, slots: Int = 20, appRegions: Int = 2, wakeDuration: Double = 10, latency: Double = 1,
            reportInterval: Double = 1, tick: Double = 0.25, shadowingSigma: Double? = nil, floorAttenuation: Double = 15,
            maximumReadings: Int = 8, foresight: Double = 120
        ) {
            self.clients = clients
            self.duration = duration
            self.seed = seed
            self.mode = mode
            self.strategies = strategies
            self.useTruth = useTruth
            self.slots = slots
            self.appRegions = appRegions
            self.wakeDuration = wakeDuration
            self.latency = latency
            self.reportInterval = reportInterval
            self.tick = tick
            self.shadowingSigma = shadowingSigma
            self.floorAttenuation = floorAttenuation
            self.maximumReadings = maximumReadings
            self.foresight = foresight
        }

        func validate() throws(SimulationError) {
            if clients < 1 { throw .invalidParameter(name: "clients", reason: "must be at least 1, got \(clients)") }
            if !(duration > 0) { throw .invalidParameter(name: "duration", reason: "must be positive, got \(duration)") }
            if !(tick > 0) || !(reportInterval >= tick) {
                throw .invalidParameter(name: "tick", reason: "must be positive and at most the report interval")
            }
            if !(wakeDuration > 0) { throw .invalidParameter(name: "wake", reason: "must be positive") }
            if slots < 1 || appRegions < 0 || appRegions >= slots {
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

    /// The result of a run.
    public struct Report: Sendable, Hashable, Codable {
        public var venue: String
        public var mode: Mode
        public var clients: Int
        public var duration: Double
        public var seed: UInt64
        public var budget: Int
        public var strategies: [StrategyResult]
    }

    public let topology: Topology
    public let configuration: Configuration
    public let graph: WalkGraph
    private let estimator: PositionEstimator?
    /// Per region: its estimator anchor, when it is one.
    private let anchorOfRegion: [Int: Int]
    /// The region of each beacon (the coordinator's lookup for ranged beacons).
    private let regionOfBeacon: [BeaconIdentity: Int]

    public init(topology: Topology, configuration: Configuration = Configuration()) throws(SimulationError) {
        try configuration.validate()
        self.topology = topology
        self.configuration = configuration
        self.graph = try WalkGraph(topology: topology)
        let shadowing = configuration.shadowingSigma ?? topology.radio.shadowing
        var regionOfBeacon: [BeaconIdentity: Int] = [:]
        for (index, region) in topology.regions.enumerated() {
            if let beacon = region.identity.beacon, regionOfBeacon[beacon] == nil { regionOfBeacon[beacon] = index }
        }
        self.regionOfBeacon = regionOfBeacon
        if configuration.useTruth {
            estimator = nil
            anchorOfRegion = [:]
        } else {
            do {
                let estimator = try PositionEstimator(
                    topology: topology, anchors: .regionBeacons,
                    configuration: PositionEstimatorConfiguration(
                        pathLoss: LogDistanceModel(
                            referencePower: Double(topology.radio.measuredPower), exponent: topology.radio.pathLossExponent),
                        shadowingSigma: shadowing, maximumGridPoints: 2000,
                        floorAttenuation: configuration.floorAttenuation))
                self.estimator = estimator
                var map: [Int: Int] = [:]
                for (index, region) in topology.regions.enumerated() {
                    if let anchor = estimator.anchorIndex(ofRegion: region.id) { map[index] = anchor }
                }
                anchorOfRegion = map
            } catch {
                throw .invalidParameter(name: "estimator", reason: error.description)
            }
        }
    }

    /// Runs every client (random walkers from the seed) and sums the tallies per strategy.
    public func run() async -> Report {
        let walkers = (0..<configuration.clients).map { client in
            Walker(graph: graph, simulationSeed: configuration.seed, client: client)
        }
        return await run(walkers: walkers)
    }

    /// Runs the given walkers (scripted ones in tests) and sums the tallies per strategy.
    public func run(walkers: [Walker]) async -> Report {
        var totals = [SimulationTally](repeating: SimulationTally(), count: configuration.strategies.count)
        for (client, walker) in walkers.enumerated() {
            for (index, tally) in await simulate(client: client, walker: walker).enumerated() { totals[index].merge(tally) }
        }
        return Report(
            venue: topology.name, mode: configuration.mode, clients: walkers.count, duration: configuration.duration,
            seed: configuration.seed, budget: configuration.slots - configuration.appRegions,
            strategies: zip(configuration.strategies, totals).map { StrategyResult(strategy: $0, tally: $1) })
    }

    // MARK: - One client

    /// One strategy's phone on the walk: the phone, the coordinator's view of it, and the tally.
    private struct Lane {
        var phone: SimulatedPhone
        var coordinator: PlanningState
        var coverage = ArrivalCoverage()
        var tally = SimulationTally()
    }

    private func simulate(client: Int, walker start: Walker) async -> [SimulationTally] {
        var walker = start
        let search = WalkingDistanceSearch(topology: topology)
        let budget = configuration.slots - configuration.appRegions
        let radio = BeaconRadio(
            topology: topology, seed: configuration.seed, shadowing: configuration.shadowingSigma,
            floorAttenuation: configuration.floorAttenuation)
        let planners = Planners(
            radio: radio, frontier: FrontierPlanner(topology: topology, configuration: FrontierPlannerConfiguration(budget: budget)),
            nearest: RegionPlanner(topology: topology, configuration: PlannerConfiguration(budget: budget)), search: search)
        var lanes: [Lane] = []
        for strategy in configuration.strategies {
            let phone = await SimulatedPhone(
                mode: configuration.mode, slots: configuration.slots, appRegions: configuration.appRegions,
                wakeDuration: configuration.wakeDuration, reportInterval: configuration.reportInterval)
            lanes.append(Lane(phone: phone, coordinator: PlanningState(strategy: strategy)))
        }
        let ticks = Int((configuration.duration / configuration.tick).rounded(.down))

        for tick in 0...ticks {
            if tick > 0 { walker.advance(by: configuration.tick) }
            let now = Double(tick) * configuration.tick
            let truth = walker.position
            let heard = radio.readings(at: truth, client: client, tick: tick)
            let detected = heard.map(\.region)
            let beacons = heard.compactMap { topology.regions[$0.region].identity.beacon }
            let ranged = heard.map { reading in
                let identity = topology.regions[reading.region].identity
                return RangedBeacon(uuid: identity.uuidString, major: identity.major ?? 0, minor: identity.minor ?? 0, rssi: reading.rssi)
            }
            let withinNow = radio.regionsWithin(truth)

            for index in lanes.indices {
                var lane = lanes[index]
                await lane.phone.detect(beacons, at: now)
                let held = lane.phone.held
                lane.coverage.step(
                    now: now, detected: detected, withinNow: withinNow, counting: tick > 0, tally: &lane.tally,
                    id: { topology.regions[$0].id }, monitored: { held.contains(topology.regions[$0].id) })
                if await lane.phone.applyDue(at: now) != nil { lane.tally.plans += 1 }
                if let report = await lane.phone.report(at: now, ranged: ranged),
                    let message = plan(for: report, lane: &lane, walker: walker, planners: planners, now: now)
                {
                    lane.phone.deliver(message, at: now + configuration.latency)
                }
                lanes[index] = lane
            }
        }
        return lanes.map { lane in
            var tally = lane.tally
            tally.metresWalked = walker.distanceWalked
            tally.wakes = lane.phone.wakes
            tally.added = lane.phone.started
            tally.removed = lane.phone.stopped
            return tally
        }
    }

    /// The planners every lane shares.
    private struct Planners {
        var radio: BeaconRadio
        var frontier: FrontierPlanner
        var nearest: RegionPlanner
        var search: WalkingDistanceSearch
    }

    /// What the coordinator knows of one phone, from its reports alone.
    private struct PlanningState {
        var strategy: Strategy
        var position: PositionState? = nil
        /// Regions the phone reported inside (an enter without an exit since) that it still monitors.
        var inside = Set<Int>()
        /// When the phone last ranged each beacon.
        var ranged: [Int: Double] = [:]
        var monitored: [String] = []
        var version: UInt64 = 0
        /// The set last published (topology indices, in priority order).
        var regions: [Int] = []
    }

    /// Folds `report` into the coordinator's view of the lane's phone and plans; returns the
    /// `regions` message to publish when the set changed.
    private func plan(for report: ClientReport, lane: inout Lane, walker: Walker, planners: Planners, now: Double) -> RegionsMessage? {
        var state = lane.coordinator
        defer { lane.coordinator = state }
        for event in report.events {
            guard let region = topology.regionIndex(id: event.region) else { continue }
            if event.type == .enter { state.inside.insert(region) } else { state.inside.remove(region) }
        }
        state.monitored = report.monitored ?? state.monitored
        let monitoredIndices = Set(state.monitored.compactMap { topology.regionIndex(id: $0) })
        state.inside.formIntersection(monitoredIndices)  // an unmonitored region never exits
        var observations: [PositionObservation] = []
        for beacon in report.ranged {
            guard let identity = BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor),
                let region = regionOfBeacon[identity]
            else { continue }
            state.ranged[region] = now
            if let anchor = anchorOfRegion[region] { observations.append(PositionObservation(anchor: anchor, rssi: Double(beacon.rssi))) }
        }
        if state.strategy == .firstSet, state.version > 0 { return nil }

        let budget = configuration.slots - configuration.appRegions
        let regions: [Int]
        var position: Position? = nil
        if state.strategy == .clairvoyant {
            regions = foresee(walker, budget: budget, radio: planners.radio)
        } else {
            let point: VenuePoint
            var confidence = 0.0
            if let estimator {
                if observations.count > configuration.maximumReadings {
                    observations.sort { ($0.rssi, -$0.anchor) > ($1.rssi, -$1.anchor) }
                    observations.removeLast(observations.count - configuration.maximumReadings)
                }
                guard let estimate = estimator.update(state.position, observations: observations, at: Date(timeIntervalSinceReferenceDate: now))
                else { return nil }
                state.position = estimate.state
                point = VenuePoint(x: estimate.x, y: estimate.y, level: estimate.level)
                confidence = estimate.confidence
            } else {
                point = walker.position
            }
            guard let location = try? topology.snap(point) else { return nil }
            position = Position(x: point.x, y: point.y, level: point.level, confidence: confidence)
            let window = planners.frontier.configuration.heardWindow
            let request = PlanRequest(
                location: location, monitored: state.monitored, inside: state.inside.sorted().map { topology.regions[$0].id },
                heard: state.ranged.filter { now - $0.value < window }.keys.sorted().map { topology.regions[$0].id }, budget: budget,
                uncertainty: confidence, now: Date(timeIntervalSinceReferenceDate: now))
            let plan =
                state.strategy == .frontier
                ? planners.frontier.plan(request, using: planners.search) : planners.nearest.plan(request, using: planners.search)
            regions = plan.regions.map(\.region)
        }
        let drifted = Set(state.monitored) != Set(state.regions.map { topology.regions[$0].id })
        guard regions != state.regions || (drifted && report.version == state.version) else { return nil }
        let old = Set(state.regions)
        let new = Set(regions)
        state.version += 1
        state.regions = regions
        return RegionsMessage(
            version: state.version, budget: budget, regions: regions.map { topology.regions[$0].reference },
            add: regions.filter { !old.contains($0) }.map { topology.regions[$0].reference },
            remove: old.subtracting(new).sorted().map { topology.regions[$0].id }, position: position,
            reason: state.version == 1 ? "initial" : "moved", time: Date(timeIntervalSinceReferenceDate: now))
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
