import Foundation
public import Planner
public import Topology

/// Walking clients without a broker: each walker's phone is simulated under every planning
/// strategy on the same walk and the same radio, and the ``SimulationTally`` of each strategy
/// gives coverage and churn.
///
/// The phone model (iOS region monitoring in the background):
/// - the phone monitors the set of its last applied plan; the first plan is made at time 0, when
///   the app starts (awake);
/// - an entry into or exit from a *monitored* region wakes it for `wakeDuration` seconds (iOS's
///   background time); an entry into an unmonitored region goes unnoticed (and is a miss);
/// - while awake it reports at once on the waking event and then every `reportInterval`: the
///   estimator folds in the evidence (ranged beacons, or gateways' sightings; the event as an
///   inside/outside constraint, and the monitored regions iOS says it is inside), the strategy
///   plans from the estimate snapped onto the graph, and the phone applies the plan (removes, then
///   adds) immediately;
/// - asleep, it neither reports nor applies anything (with gateway evidence the estimator keeps
///   tracking it, since gateways hear it anyway).
///
/// Time advances in `tick` steps; the radio noise of an anchor at a tick is addressed by
/// (seed, client, tick, anchor), so every strategy sees the same readings.
public struct OfflineSimulation: Sendable {
    /// Where position evidence comes from.
    public enum Evidence: String, Sendable, Hashable, Codable, CaseIterable {
        /// The phone ranges the region beacons while awake.
        case ranging
        /// Gateways hear the phone's advertisements all the time.
        case gateways
        /// The true position (no estimator): isolates the planner's own quality.
        case truth
    }

    /// A way of choosing the monitored set.
    public enum Strategy: String, Sendable, Hashable, Codable, CaseIterable {
        /// ``RegionPlanner`` with its hysteresis (the product).
        case planner
        /// ``RegionPlanner`` without hysteresis: every plan is the nearest regions by walking distance.
        case noHysteresis = "no-hysteresis"
        /// The nearest regions by straight-line distance (through walls and floors), no hysteresis.
        case straightLine = "straight-line"

        /// One line on what it is.
        public var summary: String {
            switch self {
            case .planner: "RegionPlanner with hysteresis (margin, swap threshold, guard distance)"
            case .noHysteresis: "RegionPlanner.withoutHysteresis: the nearest B by walking distance every plan"
            case .straightLine: "pinned, then the nearest B by straight-line 3-D distance to the region's edge"
            }
        }
    }

    public struct Configuration: Sendable {
        public var clients: Int
        /// Simulated seconds per client.
        public var duration: Double
        public var seed: UInt64
        /// Region slots; `nil` takes the venue's budget, else 20.
        public var budget: Int?
        public var evidence: Evidence
        public var strategies: [Strategy]
        public var radio: RadioModel
        /// The estimator's settings (its path loss and shadowing default to the radio's: a calibrated venue).
        public var estimator: PositionEstimatorConfiguration
        /// The hysteresis of the `planner` strategy (its budget is replaced by the simulation's).
        public var planner: PlannerConfiguration
        /// Background time after a region event, seconds.
        public var wakeDuration: Double
        /// Seconds between reports while awake.
        public var reportInterval: Double
        /// Simulation step, seconds.
        public var tick: Double
        /// Heights above the floor: region beacons, gateways (when the topology gives none), phones.
        public var beaconHeight: Double
        public var gatewayHeight: Double
        public var phoneHeight: Double
        /// The strongest readings kept per report (iOS ranges many; the estimator needs a few).
        public var maximumReadings: Int

        public init(
            clients: Int = 10, duration: Double = 900, seed: UInt64 = 1, budget: Int? = nil, evidence: Evidence = .ranging,
            strategies: [Strategy] = Strategy.allCases, radio: RadioModel = RadioModel(),
            estimator: PositionEstimatorConfiguration? = nil, planner: PlannerConfiguration = PlannerConfiguration(),
            wakeDuration: Double = 10, reportInterval: Double = 1, tick: Double = 0.25,
            beaconHeight: Double = 2.5, gatewayHeight: Double = 2.5, phoneHeight: Double = 1.2, maximumReadings: Int = 8
        ) {
            self.clients = clients
            self.duration = duration
            self.seed = seed
            self.budget = budget
            self.evidence = evidence
            self.strategies = strategies
            self.radio = radio
            self.estimator =
                estimator
                ?? PositionEstimatorConfiguration(
                    pathLoss: radio.pathLoss, shadowingSigma: radio.shadowingSigma,
                    clientHeight: phoneHeight, maximumGridPoints: 2000, floorAttenuation: radio.floorAttenuation)
            self.planner = planner
            self.wakeDuration = wakeDuration
            self.reportInterval = reportInterval
            self.tick = tick
            self.beaconHeight = beaconHeight
            self.gatewayHeight = gatewayHeight
            self.phoneHeight = phoneHeight
            self.maximumReadings = maximumReadings
        }

        func validate() throws(SimulationError) {
            if clients < 1 { throw .invalidParameter(name: "clients", reason: "must be at least 1, got \(clients)") }
            if !(duration > 0) { throw .invalidParameter(name: "duration", reason: "must be positive, got \(duration)") }
            if let budget, budget < 1 { throw .invalidParameter(name: "budget", reason: "must be at least 1, got \(budget)") }
            if !(tick > 0) || !(reportInterval >= tick) {
                throw .invalidParameter(name: "tick", reason: "must be positive and at most reportInterval")
            }
            if !(wakeDuration > 0) { throw .invalidParameter(name: "wakeDuration", reason: "must be positive") }
            if strategies.isEmpty { throw .invalidParameter(name: "strategies", reason: "name at least one") }
        }
    }

    public let topology: Topology
    public let configuration: Configuration
    public let graph: WalkGraph
    public let budget: Int
    private let estimator: PositionEstimator
    /// Per anchor of the estimator: where it is (for the radio) as (x, y, level order, absolute height).
    private let anchorGeometry: [(x: Double, y: Double, order: Int, z: Double)]
    private let levelOrder: [String: Int]
    private let levelElevation: [String: Double]
    /// Positioned regions: index, centre, radius, level.
    private let placedRegions: [(region: Int, x: Double, y: Double, level: String, radius: Double)]
    /// Unplaced regions of one level (UUID + major wildcards): inside anywhere on that level.
    private let levelRegions: [(region: Int, level: String)]

    public init(topology: Topology, configuration: Configuration = Configuration()) throws(SimulationError) {
        try configuration.validate()
        self.topology = topology
        self.configuration = configuration
        self.graph = try WalkGraph(topology: topology)
        self.budget = configuration.budget ?? topology.budget ?? 20

        let sortedLevels = topology.levels.enumerated().sorted { ($0.element.elevation, $0.offset) < ($1.element.elevation, $1.offset) }
        var order: [String: Int] = [:]
        var elevation: [String: Double] = [:]
        let distinctElevations = Set(topology.levels.map(\.elevation)).count == topology.levels.count
        for (rank, entry) in sortedLevels.enumerated() {
            order[entry.element.id] = rank
            elevation[entry.element.id] = distinctElevations ? entry.element.elevation : Double(rank) * configuration.estimator.levelHeight
        }
        self.levelOrder = order
        self.levelElevation = elevation

        let anchors: PositionAnchorSet = configuration.evidence == .gateways ? .gateways : .regionBeacons
        do {
            self.estimator = try PositionEstimator(
                topology: topology, anchors: anchors, configuration: configuration.estimator, gatewayHeight: configuration.gatewayHeight,
                beaconHeight: configuration.beaconHeight)
        } catch {
            throw .invalidParameter(name: "estimator", reason: error.description)
        }
        if configuration.evidence != .truth && estimator.anchors.isEmpty {
            throw .unsuitableTopology(
                "'\(topology.name)' has no \(configuration.evidence == .gateways ? "gateways" : "positioned region beacons") to locate clients with"
            )
        }
        self.anchorGeometry = estimator.anchors.map { anchor in
            (anchor.x, anchor.y, order[anchor.level] ?? 0, (elevation[anchor.level] ?? 0) + anchor.height)
        }
        self.placedRegions = topology.regions.enumerated().compactMap { index, region in
            region.position.map { (index, $0.x, $0.y, $0.level, region.radius) }
        }
        self.levelRegions = topology.regions.enumerated().compactMap { index, region in
            guard region.position == nil, let level = region.level else { return nil }
            return (index, level)
        }
    }

    /// Runs every client (random walkers from the seed) and sums the tallies per strategy.
    public func run() -> SimulationReport {
        let walkers = (0..<configuration.clients).map { client in
            Walker(graph: graph, simulationSeed: configuration.seed, client: client)
        }
        return run(walkers: walkers)
    }

    /// Runs the given walkers (scripted ones in tests) and sums the tallies per strategy.
    public func run(walkers: [Walker]) -> SimulationReport {
        var totals = [SimulationTally](repeating: SimulationTally(), count: configuration.strategies.count)
        var errors: [Double] = []
        var levelMismatches = 0
        for (client, walker) in walkers.enumerated() {
            let result = simulate(client: client, walker: walker)
            for index in totals.indices { totals[index].merge(result.tallies[index]) }
            errors.append(contentsOf: result.errors)
            levelMismatches += result.levelMismatches
        }
        return SimulationReport(
            venue: topology.name, regions: topology.regions.count, clients: walkers.count, duration: configuration.duration,
            seed: configuration.seed, budget: budget, evidence: configuration.evidence,
            wakeDuration: configuration.wakeDuration, reportInterval: configuration.reportInterval,
            hysteresis: SimulationReport.Hysteresis(
                margin: configuration.planner.margin, swapThreshold: configuration.planner.swapThreshold,
                guardDistance: configuration.planner.guardDistance),
            strategies: zip(configuration.strategies, totals).map { SimulationReport.StrategyResult(strategy: $0, tally: $1) },
            positionError: TetamReport.Summary(errors), levelMismatches: levelMismatches)
    }

    // MARK: - One client

    private struct Phone {
        var monitored: [String] = []
        var monitoredSet = Set<Int>()
        var awakeUntil: Double
        var nextReport: Double = 0
        var state: PositionState? = nil
        var planned = false
        var tally = SimulationTally()
    }

    private func simulate(client: Int, walker start: Walker) -> (tallies: [SimulationTally], errors: [Double], levelMismatches: Int) {
        var walker = start
        let search = WalkingDistanceSearch(topology: topology)
        let planners = configuration.strategies.map { strategy -> RegionPlanner? in
            switch strategy {
            case .planner:
                var planner = configuration.planner
                planner.budget = budget
                return RegionPlanner(topology: topology, configuration: planner)
            case .noHysteresis: return RegionPlanner(topology: topology, configuration: .withoutHysteresis(budget: budget))
            case .straightLine: return nil
            }
        }
        var phones = configuration.strategies.map { _ in Phone(awakeUntil: configuration.wakeDuration) }
        var errors: [Double] = []
        var levelMismatches = 0
        var inside = insideRegions(walker.position, levels: walker.levels, using: search)
        let ticks = Int((configuration.duration / configuration.tick).rounded(.down))
        let noise = CounterNoise(seed: configuration.seed)
        var lastReadingsTick = -1
        var readings: [PositionObservation] = []

        for tick in 0...ticks {
            if tick > 0 { walker.advance(by: configuration.tick) }
            let now = Double(tick) * configuration.tick
            let truth = walker.position
            let insideNow = insideRegions(truth, levels: walker.levels, using: search)
            let entered = tick == 0 ? [] : insideNow.subtracting(inside).sorted()
            let exited = tick == 0 ? [] : inside.subtracting(insideNow).sorted()
            inside = insideNow

            for index in phones.indices {
                var phone = phones[index]
                var constraints: [PositionConstraint] = []
                for region in entered {
                    let monitored = phone.monitoredSet.contains(region)
                    phone.tally.recordEntry(region: topology.regions[region].id, monitored: monitored)
                    if monitored { constraints.append(constraint(region, .inside)) }
                }
                for region in exited where phone.monitoredSet.contains(region) {
                    constraints.append(constraint(region, .outside))
                }
                let woken = !constraints.isEmpty
                // iOS knows which monitored regions it is inside; each report says so.
                for region in insideNow.sorted() where phone.monitoredSet.contains(region) && !entered.contains(region) {
                    constraints.append(constraint(region, .inside))
                }
                if woken {
                    if now >= phone.awakeUntil { phone.tally.wakes += 1 }
                    phone.awakeUntil = max(phone.awakeUntil, now + configuration.wakeDuration)
                }
                let awake = now < phone.awakeUntil
                let due = now >= phone.nextReport - 1e-9
                let reports = awake && (woken || due)
                let tracks = configuration.evidence == .gateways && due
                if reports || tracks {
                    if lastReadingsTick != tick {
                        readings = self.readings(at: truth, climb: walker.climb, client: client, tick: tick, noise: noise)
                        lastReadingsTick = tick
                    }
                    // Position: the estimator's (or the truth's), snapped onto the graph.
                    var point: VenuePoint? = nil
                    var uncertainty = 0.0
                    if configuration.evidence == .truth {
                        point = truth
                    } else if let estimate = estimator.update(
                        phone.state, observations: readings, constraints: reports ? constraints : [],
                        at: Date(timeIntervalSinceReferenceDate: now))
                    {
                        phone.state = estimate.state
                        point = VenuePoint(x: estimate.x, y: estimate.y, level: estimate.level)
                        uncertainty = estimate.confidence
                        if reports, walker.climb == nil {  // between floors the truth has no level
                            if estimate.level == truth.level {
                                errors.append(hypot(estimate.x - truth.x, estimate.y - truth.y))
                            } else {
                                levelMismatches += 1
                            }
                        }
                    }
                    if due { phone.nextReport = now + configuration.reportInterval }
                    if reports, let point {
                        let insideKnown = insideNow.filter { phone.monitoredSet.contains($0) }.sorted().map { topology.regions[$0].id }
                        if let ids = plan(
                            configuration.strategies[index], planner: planners[index], search: search, at: point, uncertainty: uncertainty,
                            phone: phone, inside: insideKnown, now: now)
                        {
                            let newSet = Set(ids.compactMap { topology.regionIndex(id: $0) })
                            let added = newSet.subtracting(phone.monitoredSet).count
                            let removed = phone.monitoredSet.subtracting(newSet).count
                            phone.tally.recordPlan(added: added, removed: removed, initial: !phone.planned)
                            phone.planned = true
                            phone.monitored = ids
                            phone.monitoredSet = newSet
                        }
                    }
                }
                phones[index] = phone
            }
        }
        for index in phones.indices { phones[index].tally.metresWalked = walker.distanceWalked }
        return (phones.map(\.tally), errors, levelMismatches)
    }

    /// The strategy's set (region ids) from `point`, or `nil` when the point cannot be placed on the graph.
    /// The planner is given the estimate's confidence radius as its `uncertainty`, as the coordinator does (the
    /// no-hysteresis baseline stays exactly the nearest regions).
    private func plan(
        _ strategy: Strategy, planner: RegionPlanner?, search: WalkingDistanceSearch, at point: VenuePoint, uncertainty: Double,
        phone: Phone, inside: [String], now: Double
    ) -> [String]? {
        switch strategy {
        case .planner, .noHysteresis:
            guard let planner, let location = try? topology.snap(point) else { return nil }
            let request = PlanRequest(
                location: location, monitored: phone.monitored, inside: inside, budget: budget,
                uncertainty: strategy == .planner ? uncertainty : 0, now: Date(timeIntervalSinceReferenceDate: now))
            return planner.plan(request, using: search).ids
        case .straightLine:
            return straightLineNearest(point)
        }
    }

    /// Pinned regions, then the nearest by straight-line 3-D distance to the region's edge (ties by id).
    public func straightLineNearest(_ point: VenuePoint) -> [String] {
        var ids: [String] = topology.pinnedRegions.prefix(budget).map { topology.regions[$0].id }
        let pinned = Set(topology.pinnedRegions)
        let z = levelElevation[point.level] ?? 0
        var ranked: [(distance: Double, id: String)] = []
        ranked.reserveCapacity(placedRegions.count)
        for region in placedRegions where !pinned.contains(region.region) {
            let dz = (levelElevation[region.level] ?? 0) - z
            let dx = region.x - point.x
            let dy = region.y - point.y
            let distance = max((dx * dx + dy * dy + dz * dz).squareRoot() - region.radius, 0)
            ranked.append((distance, topology.regions[region.region].id))
        }
        ranked.sort { ($0.distance, $0.id) < ($1.distance, $1.id) }
        for entry in ranked where ids.count < budget { ids.append(entry.id) }
        return ids
    }

    /// The regions the point is inside, as the planner defines it: walking distance from the point
    /// (snapped onto the graph) to the region's centre within its radius; and the level-wide
    /// (unplaced, per-level) regions of `levels` (default: the point's level; a walker on stairs
    /// hears both floors). A region behind a wall is not entered through the wall.
    public func insideRegions(_ point: VenuePoint, levels: Set<String>? = nil, using search: WalkingDistanceSearch) -> Set<Int> {
        var result = Set<Int>()
        let heard = levels ?? [point.level]
        for region in levelRegions where heard.contains(region.level) { result.insert(region.region) }
        // Straight-line distance never exceeds walking distance: only regions within their radius
        // in a straight line can contain the point.
        var candidates: [Int] = []
        for region in placedRegions where region.level == point.level {
            let dx = region.x - point.x
            let dy = region.y - point.y
            if dx * dx + dy * dy <= region.radius * region.radius { candidates.append(region.region) }
        }
        guard !candidates.isEmpty, let location = try? topology.snap(point) else { return result }
        for (region, distance) in zip(candidates, search.distances(from: location, toRegions: candidates)) where distance == 0 {
            result.insert(region)
        }
        return result
    }

    /// ``insideRegions(_:using:)`` with a search of its own.
    public func insideRegions(_ point: VenuePoint) -> Set<Int> {
        insideRegions(point, using: WalkingDistanceSearch(topology: topology))
    }

    private func constraint(_ region: Int, _ kind: PositionConstraint.Kind) -> PositionConstraint {
        let r = topology.regions[region]
        guard let p = r.position else {
            return PositionConstraint(kind, x: 0, y: 0, level: r.level ?? "", radius: .infinity)
        }
        return PositionConstraint(kind, x: p.x, y: p.y, level: p.level, radius: r.radius)
    }

    /// The readings of one report: every anchor heard from the true position, the strongest kept.
    private func readings(at truth: VenuePoint, climb: (level: String, fraction: Double)?, client: Int, tick: Int, noise: CounterNoise)
        -> [PositionObservation]
    {
        guard configuration.evidence != .truth else { return [] }
        var order = levelOrder[truth.level] ?? 0
        var z = (levelElevation[truth.level] ?? 0) + configuration.phoneHeight
        if let climb {
            // Part-way up (or down) the stairs: between the floors, nearer the one it is closer to.
            let target = levelElevation[climb.level] ?? 0
            z += climb.fraction * (target - (levelElevation[truth.level] ?? 0))
            if climb.fraction >= 0.5 { order = levelOrder[climb.level] ?? order }
        }
        var heard: [PositionObservation] = []
        for (index, anchor) in anchorGeometry.enumerated() {
            let dx = anchor.x - truth.x
            let dy = anchor.y - truth.y
            let dz = anchor.z - z
            let distance = (dx * dx + dy * dy + dz * dz).squareRoot()
            let draw = noise.normal(UInt64(client), UInt64(tick), UInt64(index))
            if let rssi = configuration.radio.reading(distance: distance, floors: anchor.order - order, standardNormal: draw) {
                heard.append(PositionObservation(anchor: index, rssi: Double(rssi)))
            }
        }
        if heard.count > configuration.maximumReadings {
            heard.sort { ($0.rssi, -$0.anchor) > ($1.rssi, -$1.anchor) }
            heard.removeLast(heard.count - configuration.maximumReadings)
        }
        return heard
    }
}
