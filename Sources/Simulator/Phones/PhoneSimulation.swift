import BeaconKit
import Foundation
import Planner
public import Topology

/// Phones that follow iOS's rules (`../shared/IOS.md`) walking a venue, without a broker: every
/// strategy is run on the same walk and the same radio, and coverage is counted on arrivals.
///
/// - **Radio**: each tick, a region's beacon is detected when its reading (its `power` at 1 m, the
///   venue's path-loss exponent, log-normal body shadowing, a loss per floor) reaches the venue's
///   sensitivity; the noise of (client, tick, beacon) is the same for every strategy.
/// - **iOS** (``IOSRegionMonitoring``): enter on the first detection of a held region while
///   outside, exit 30 s after its last detection, no enter for a region added in range.
/// - **The app**, suspended by default: woken for ``Configuration/wakeDuration`` seconds by a
///   region event (and once at launch); while awake it ranges the detected beacons and reports
///   once a second; the coordinator's answer (the strategy's plan from the estimate) is applied
///   ``Configuration/latency`` seconds after the report if the app is still awake, else at its
///   next wake (it reads the retained set). ``Mode/foreground`` keeps it awake throughout.
/// - **Coverage**: an *arrival* is coming within a region's radius of its beacon; it is covered
///   when the region was held at some moment between the beacon's first detection on that
///   approach (detections less than 30 s apart are one approach) and the arrival.
public struct PhoneSimulation: Sendable {
    /// How the app runs.
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        /// Woken only by region events, about 10 s each (the case BeaconFleet exists for).
        case suspended
        /// Awake and reporting every second throughout.
        case foreground
    }

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
        /// Body shadowing of one reading (dB) and loss per floor (dB).
        public var shadowingSigma: Double
        public var floorAttenuation: Double
        /// Readings kept per report (the strongest).
        public var maximumReadings: Int
        /// How far ahead the clairvoyant looks, seconds.
        public var foresight: Double

        public init(
            clients: Int = 10, duration: Double = 900, seed: UInt64 = 1, mode: Mode = .suspended,
            strategies: [Strategy] = Strategy.allCases,
            useTruth: Bool = false, slots: Int = 20, appRegions: Int = 2, wakeDuration: Double = 10, latency: Double = 1,
            reportInterval: Double = 1, tick: Double = 0.25, shadowingSigma: Double = 5, floorAttenuation: Double = 15,
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
    /// Placed regions by level: index, x, y, radius, level order.
    private let placed: [String: [(region: Int, x: Double, y: Double, radius: Double)]]
    private let levelOrder: [String: Int]

    public init(topology: Topology, configuration: Configuration = Configuration()) throws(SimulationError) {
        try configuration.validate()
        self.topology = topology
        self.configuration = configuration
        self.graph = try WalkGraph(topology: topology)
        var placed: [String: [(region: Int, x: Double, y: Double, radius: Double)]] = [:]
        for (index, region) in topology.regions.enumerated() {
            guard let p = region.position else { continue }
            placed[p.level, default: []].append((index, p.x, p.y, region.radius))
        }
        self.placed = placed
        self.levelOrder = Dictionary(
            uniqueKeysWithValues: topology.levels.enumerated()
                .sorted { ($0.element.elevation, $0.offset) < ($1.element.elevation, $1.offset) }.enumerated().map { ($1.element.id, $0) })
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
                        shadowingSigma: configuration.shadowingSigma, maximumGridPoints: 2000,
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
    public func run() -> Report {
        let walkers = (0..<configuration.clients).map { client in
            Walker(graph: graph, simulationSeed: configuration.seed, client: client)
        }
        return run(walkers: walkers)
    }

    /// Runs the given walkers (scripted ones in tests) and sums the tallies per strategy.
    public func run(walkers: [Walker]) -> Report {
        var totals = [SimulationTally](repeating: SimulationTally(), count: configuration.strategies.count)
        for (client, walker) in walkers.enumerated() {
            for (index, tally) in simulate(client: client, walker: walker).enumerated() { totals[index].merge(tally) }
        }
        return Report(
            venue: topology.name, mode: configuration.mode, clients: walkers.count, duration: configuration.duration,
            seed: configuration.seed, budget: configuration.slots - configuration.appRegions,
            strategies: zip(configuration.strategies, totals).map { StrategyResult(strategy: $0, tally: $1) })
    }

    // MARK: - One client

    private struct Phone {
        var ios: IOSRegionMonitoring
        var awakeUntil: Double
        var nextReport: Double = 0
        var pending: (at: Double, regions: [Int])? = nil
        var state: PositionState? = nil
        var planned = false
        /// Per region in an approach: whether it was held at some moment of it.
        var approaches: [Int: Bool] = [:]
        var tally = SimulationTally()
    }

    private func simulate(client: Int, walker start: Walker) -> [SimulationTally] {
        var walker = start
        let search = WalkingDistanceSearch(topology: topology)
        let budget = configuration.slots - configuration.appRegions
        let frontier = FrontierPlanner(topology: topology, configuration: FrontierPlannerConfiguration(budget: budget))
        let nearest = RegionPlanner(topology: topology, configuration: PlannerConfiguration(budget: budget))
        let noise = CounterNoise(seed: configuration.seed)
        var phones = configuration.strategies.map { _ in
            Phone(
                ios: IOSRegionMonitoring(slots: configuration.slots, appRegions: configuration.appRegions),
                awakeUntil: configuration.wakeDuration)
        }
        var within = Set<Int>()  // regions whose radius the walker is within
        let ticks = Int((configuration.duration / configuration.tick).rounded(.down))

        for tick in 0...ticks {
            if tick > 0 { walker.advance(by: configuration.tick) }
            let now = Double(tick) * configuration.tick
            let truth = walker.position
            let heard = readings(at: truth, climb: walker.climb, client: client, tick: tick, noise: noise)
            let detected = heard.map(\.region)
            let withinNow = regionsWithin(truth)
            let arrived = withinNow.subtracting(within)
            within = withinNow

            for index in phones.indices {
                var phone = phones[index]
                let events = phone.ios.step(detected: detected, now: now)
                // Approaches and arrivals.
                for region in detected where phone.approaches[region] == nil { phone.approaches[region] = false }
                for (region, covered) in phone.approaches {
                    if !covered, phone.ios.holds(region) { phone.approaches[region] = true }
                    if now - (phone.ios.lastDetected[region] ?? -.infinity) >= phone.ios.exitDelay { phone.approaches[region] = nil }
                }
                if tick > 0 {
                    for region in arrived.sorted() {
                        phone.tally.recordEntry(
                            region: topology.regions[region].id, monitored: phone.approaches[region] ?? phone.ios.holds(region))
                    }
                }
                // Wakes.
                if configuration.mode == .foreground {
                    phone.awakeUntil = .infinity
                } else if !events.isEmpty {
                    // Every event runs the app again (and costs it): count each, not only those that find it asleep.
                    phone.tally.wakes += 1
                    if now >= phone.awakeUntil { phone.nextReport = now }
                    phone.awakeUntil = max(phone.awakeUntil, now + configuration.wakeDuration)
                }
                let awake = now < phone.awakeUntil
                // The answer to an earlier report, when the app runs to apply it.
                if awake, let pending = phone.pending, now >= pending.at {
                    let change = phone.ios.apply(pending.regions, now: now)
                    phone.tally.recordPlan(added: change.added, removed: change.removed, initial: !phone.planned)
                    phone.planned = true
                    phone.pending = nil
                }
                if awake, now >= phone.nextReport - 1e-9 {
                    phone.nextReport = now + configuration.reportInterval
                    let strategy = configuration.strategies[index]
                    let (point, confidence) = position(of: &phone, truth: truth, heard: heard, now: now)
                    if let point, strategy != .firstSet || !phone.planned, phone.pending == nil || strategy == .clairvoyant {
                        if let regions = plan(
                            strategy, phone: phone, at: point, confidence: confidence, walker: walker, frontier: frontier,
                            nearest: nearest, search: search, now: now)
                        {
                            phone.pending = (now + configuration.latency, regions)
                        }
                    }
                }
                phones[index] = phone
            }
        }
        for index in phones.indices { phones[index].tally.metresWalked = walker.distanceWalked }
        return phones.map(\.tally)
    }

    /// The coordinator's idea of where the phone is after this report.
    private func position(of phone: inout Phone, truth: VenuePoint, heard: [(region: Int, rssi: Int)], now: Double) -> (VenuePoint?, Double)
    {
        guard let estimator else { return (truth, 0) }
        var observations = heard.compactMap { reading in
            anchorOfRegion[reading.region].map { PositionObservation(anchor: $0, rssi: Double(reading.rssi)) }
        }
        if observations.count > configuration.maximumReadings {
            observations.sort { ($0.rssi, -$0.anchor) > ($1.rssi, -$1.anchor) }
            observations.removeLast(observations.count - configuration.maximumReadings)
        }
        guard let estimate = estimator.update(phone.state, observations: observations, at: Date(timeIntervalSinceReferenceDate: now)) else {
            return (nil, 0)
        }
        phone.state = estimate.state
        return (VenuePoint(x: estimate.x, y: estimate.y, level: estimate.level), estimate.confidence)
    }

    /// The strategy's set (topology indices, in priority order), or `nil` when the point is off the graph.
    private func plan(
        _ strategy: Strategy, phone: Phone, at point: VenuePoint, confidence: Double, walker: Walker, frontier: FrontierPlanner,
        nearest: RegionPlanner, search: WalkingDistanceSearch, now: Double
    ) -> [Int]? {
        let budget = configuration.slots - configuration.appRegions
        if strategy == .clairvoyant { return foresee(walker, budget: budget) }
        guard let location = try? topology.snap(point) else { return nil }
        let held = phone.ios.held.map { topology.regions[$0].id }
        let inside = phone.ios.inside.sorted().map { topology.regions[$0].id }
        let request = PlanRequest(
            location: location, monitored: held, inside: inside, budget: budget, uncertainty: confidence,
            now: Date(timeIntervalSinceReferenceDate: now))
        let plan = strategy == .frontier ? frontier.plan(request, using: search) : nearest.plan(request, using: search)
        return plan.regions.map(\.region)
    }

    /// The clairvoyant's set: pinned regions, then the regions the walker will arrive at next
    /// (within `foresight` seconds), in the order of arrival, then the nearest by straight line.
    private func foresee(_ walker: Walker, budget: Int) -> [Int] {
        var result = Array(topology.pinnedRegions.prefix(budget))
        var seen = Set(result)
        var future = walker
        var elapsed = 0.0
        while elapsed < configuration.foresight, result.count < budget {
            for region in regionsWithin(future.position).sorted() where seen.insert(region).inserted && result.count < budget {
                result.append(region)
            }
            future.advance(by: 0.5)
            elapsed += 0.5
        }
        return result
    }

    /// Placed regions whose radius contains `point` (same level, straight line).
    private func regionsWithin(_ point: VenuePoint) -> Set<Int> {
        var result = Set<Int>()
        for region in placed[point.level] ?? [] {
            let dx = region.x - point.x
            let dy = region.y - point.y
            if dx * dx + dy * dy <= region.radius * region.radius { result.insert(region.region) }
        }
        return result
    }

    /// The beacons detected from the true position this tick, with their readings.
    private func readings(at truth: VenuePoint, climb: (level: String, fraction: Double)?, client: Int, tick: Int, noise: CounterNoise)
        -> [(region: Int, rssi: Int)]
    {
        var heard: [(region: Int, rssi: Int)] = []
        let radio = topology.radio
        let model = radio.distanceModel
        let order = levelOrder[truth.level] ?? 0
        for (level, regions) in placed {
            let floors = abs((levelOrder[level] ?? 0) - order)
            if floors > 1 { continue }
            for region in regions {
                let dx = region.x - truth.x
                let dy = region.y - truth.y
                let distance = Swift.max((dx * dx + dy * dy + 1.69).squareRoot(), 0.1)  // beacon 1.3 m above the phone
                let power = Double(topology.regions[region.region].measuredPower ?? radio.measuredPower)
                let mean = model.expectedRSSI(atDistance: distance, referencePower: power) - Double(floors) * configuration.floorAttenuation
                let rssi = (mean + configuration.shadowingSigma * noise.normal(UInt64(client), UInt64(tick), UInt64(region.region)))
                    .rounded()
                if rssi >= radio.sensitivity { heard.append((region.region, Int(Swift.max(rssi, -127)))) }
            }
        }
        return heard
    }
}
