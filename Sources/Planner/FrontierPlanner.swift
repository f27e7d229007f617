public import Topology

/// Plans for a phone that will next run only when iOS wakes it: the set must make iOS wake the
/// phone before it can arrive at any region that is not in the set (`../shared/IOS.md`).
///
/// iOS wakes a suspended app when a monitored region's beacon is first detected while the region
/// is *outside* (at its detection range, ``Topology/detectionRanges``, often 10–25 m), or about
/// 30 s after a monitored region's beacon was last detected. A region already detected fires no
/// enter, so nearest-N by distance alone, which fills the slots with regions the phone already
/// hears, leaves it asleep while it walks past everything else. The slot model:
///
/// 1. **pinned** regions;
/// 2. **inside**: regions whose beacon the phone may detect now (reported inside, or within
///    detection range plus the position's uncertainty) and that it has not yet arrived at
///    (within their radius), nearest first: monitoring one now is iOS telling the app about it
///    (`requestState` answers *inside*), which is all an approach needs. So only those iOS has not
///    yet told the app about on this approach (``PlanRequest/told``) are taken here, arrived at or
///    not (the estimate may run ahead): where more regions are in range than slots, the set
///    rotates through them while the phone is awake, and a told one leaves its slot to the
///    frontier. At most the slots left less ``FrontierPlannerConfiguration/frontierReserve``.
///    When every region in range has been told, the nearest stays as an *exit wire*: its exit
///    wakes the phone once it has left, wherever it went (quiet regions wake it only where they
///    were placed, and a phone that takes a lift the plan did not foresee passes none of them);
/// 3. **frontier**: quiet regions (not detectable now) chosen so that every quiet region within
///    ``FrontierPlannerConfiguration/horizon`` metres of walking is *shielded*: monitored itself,
///    or lying, arrival disk and ``FrontierPlannerConfiguration/wakeMargin`` included, inside the
///    detection range of a monitored quiet region. Reaching a shielded region's radius means first
///    crossing into a monitored quiet region's range, which wakes the phone at least the margin
///    before it arrives, in time for the next plan to add it. The nearest quiet region of every
///    other level within the horizon is shielded first (a phone may take the stairs or a lift
///    asleep, past a landing heard from below), then the rest nearest first, each time with the
///    candidate that shields the most still-unshielded ones (ties: one already monitored, then
///    the nearest);
/// 4. **nearest**: what slots remain, previously monitored regions first, then by walking distance.
///
/// A pure function of the topology, the configuration and the ``PlanRequest``, like
/// ``NearestPlanner`` (the baseline it is measured against).
public struct FrontierPlanner: RegionPlanning {
    public let topology: Topology
    public var configuration: FrontierPlannerConfiguration
    /// Per region: metres within which phones detect its beacon, and within which a lucky reading
    /// may already have (the topology's ``Topology/detectionRanges`` and ``Topology/reachRanges``,
    /// from the venue files, until ``withMeasuredPowers(_:)`` gives what phones ranged).
    public private(set) var detectionRanges: [Double]
    public private(set) var reachRanges: [Double]

    public init(topology: Topology, configuration: FrontierPlannerConfiguration = FrontierPlannerConfiguration()) {
        self.topology = topology
        self.configuration = configuration
        detectionRanges = topology.detectionRanges
        reachRanges = topology.reachRanges
    }

    /// The same planner with the ranges of the measured powers `powers` (dBm at 1 m, by region
    /// index; `nil`: the venue files' own), as phones' ranging shows them (``RangedRadio``).
    public func withMeasuredPowers(_ powers: [Double?]) -> FrontierPlanner {
        var planner = self
        let radio = topology.radio
        for (index, power) in powers.enumerated() where index < topology.regions.count {
            guard let power else {
                planner.detectionRanges[index] = topology.detectionRanges[index]
                planner.reachRanges[index] = topology.reachRanges[index]
                continue
            }
            planner.detectionRanges[index] = radio.detectionRange(power: power)
            planner.reachRanges[index] = radio.reach(power: power)
        }
        return planner
    }

    /// Plans using `search`'s scratch memory (`search` must be on the same topology).
    public func plan(_ request: PlanRequest, using search: WalkingDistanceSearch) -> RegionPlan {
        precondition(search.topology === topology, "the search runs on another topology")
        let budget = request.slots(cappedAt: configuration.budget)
        let regions = topology.regions
        let here = request.location.point
        let uncertainty = Swift.max(0, request.uncertainty) + request.location.offset

        let monitored = Set(request.monitored)
        let reportedInside = Set(request.inside)
        let heard = Set(request.heard)
        let warm = Set(request.warm)
        let told = Set(request.told)
        let stateUnknown = Set(request.stateUnknown)

        var chosen: [PlannedRegion] = []
        var taken = Set<Int>()
        for index in topology.pinnedRegions.prefix(budget) {
            taken.insert(index)
            chosen.append(PlannedRegion(region: index, id: regions[index].id, slot: .pinned, distance: nil))
        }

        let landings = landings(from: here)

        // Candidates: the regions nearest by walking distance, with where they stand for iOS now.
        let count = Swift.min(regions.count, Swift.max(configuration.candidates, budget * 4))
        var candidates: [Candidate] = []
        candidates.reserveCapacity(count)
        for entry in budget == 0 ? [] : search.nearestRegions(from: request.location, count: count) where !taken.contains(entry.region) {
            guard let position = regions[entry.region].position else { continue }
            let straight = position.distance(to: here)
            // For a monitored region iOS's own state is the truth (unless the caller may have
            // missed it); for the others what the phone ranged, when it ranged lately (the venue
            // file's radio is a guess: beacons ship at other powers), else the geometry (as far as
            // a lucky reading reaches). A monitored region whose state the caller may have missed
            // counts as inside while anything says it may be: iOS exits 30 s after the last detection.
            let inReach = straight <= reachRanges[entry.region] + uncertainty
            let detectable =
                if stateUnknown.contains(entry.region) {
                    reportedInside.contains(entry.region) || heard.contains(entry.region) || warm.contains(entry.region) || inReach
                } else if monitored.contains(entry.region) && !request.inside.isEmpty {
                    reportedInside.contains(entry.region)
                } else {
                    reportedInside.contains(entry.region) || heard.contains(entry.region) || (heard.isEmpty && warm.isEmpty && inReach)
                }
            candidates.append(
                Candidate(
                    region: entry.region,
                    walking: walking(
                        entry.distance, to: position, straight: straight, radius: regions[entry.region].radius, landings: landings),
                    straight: straight, detectable: detectable,
                    arrived: straight <= regions[entry.region].radius, warm: !detectable && warm.contains(entry.region),
                    told: told.contains(entry.region)))
        }
        // Reported-inside regions beyond the ranking still count as inside.
        let ranked = Set(candidates.map(\.region))
        let missing = reportedInside.filter { !ranked.contains($0) && !taken.contains($0) && regions[$0].position != nil }.sorted()
        for (region, distance) in zip(missing, search.distances(from: request.location, toRegions: missing)) {
            candidates.append(
                Candidate(
                    region: region, walking: distance ?? .infinity, straight: .infinity, detectable: true, arrived: false, warm: false,
                    told: told.contains(region)))
        }

        func take(_ candidate: Candidate, _ slot: PlannedRegion.Slot) {
            taken.insert(candidate.region)
            chosen.append(
                PlannedRegion(
                    region: candidate.region, id: regions[candidate.region].id, slot: slot,
                    distance: candidate.walking.isFinite ? candidate.walking : nil))
        }

        // 2. Inside, not yet arrived at: nearest first, leaving the frontier its reserve.
        let free = budget - chosen.count
        // At most half the free slots: a small budget still holds the regions in range first.
        // A phone that runs in the foreground reports every second and is planned as it walks: it
        // needs few trip wires until it is suspended again.
        let reserve = Swift.min(free / 2, request.awake ? configuration.foregroundReserve : configuration.frontierReserve)
        // Only those not yet told (iOS telling the app is what the approach needs; a told one has
        // had it, and keeps a slot only if one is left at the end). Nearest first; those already
        // monitored count as `incumbency` metres nearer (less churn).
        func rank(_ c: Candidate) -> (Double, String) {
            (c.walking - (monitored.contains(c.region) ? configuration.incumbency : 0), regions[c.region].id)
        }
        let approaching = candidates.filter { $0.isApproaching && !$0.told }.sorted { rank($0) < rank($1) }
        for candidate in approaching.prefix(Swift.max(0, free - reserve)) { take(candidate, .inside) }
        // An exit wire: when every region in range has been told and left its slot, the nearest
        // of them stays, so that its exit (30–90 s after the beacon's last detection) wakes the
        // phone once it has left, wherever it went: up a stair the plan did not foresee, or far
        // from where the estimate put it. Quiet regions alone wake it only where they were placed.
        if budget - chosen.count > reserve, !chosen.contains(where: { $0.slot == .inside }),
            let wire = candidates.lazy.filter({ $0.detectable && !taken.contains($0.region) }).min(by: { rank($0) < rank($1) })
        {
            take(wire, .inside)
        }

        // 3. Frontier: shield every quiet region within the horizon, nearest first.
        let quiet = candidates.filter { !$0.detectable && !taken.contains($0.region) }
        let targets = quiet.filter { $0.walking <= configuration.horizon }
            .sorted { ($0.walking, regions[$0.region].id) < ($1.walking, regions[$1.region].id) }
        var shielded = [Bool](repeating: false, count: targets.count)
        // shields[q]: the targets quiet candidate q shields (itself included when it is a target).
        let shields: [[Int]] = quiet.map { q in
            targets.indices.filter { t in q.region == targets[t].region || self.shields(q.region, targets[t].region) }
        }
        // A monitored shield that still shields target `t` is kept (no churn); else the one that
        // shields the most still-unshielded regions, the nearest on ties.
        func shield(_ t: Int) {
            var best: Int? = nil
            var bestKey = (0, 0, 0, 0.0)
            for (q, covered) in shields.enumerated() where !taken.contains(quiet[q].region) && covered.contains(t) {
                let gain = covered.reduce(0) { $0 + (shielded[$1] ? 0 : 1) }
                let key = (monitored.contains(quiet[q].region) ? 1 : 0, quiet[q].warm ? 0 : 1, gain, -quiet[q].walking)
                if best == nil || key > bestKey {
                    best = q
                    bestKey = key
                }
            }
            shielded[t] = true  // a target shields itself, so `best` is nil only once it is taken
            guard let best else { return }
            take(quiet[best], .frontier)
            for covered in shields[best] { shielded[covered] = true }
        }
        // Another level first: a phone that takes the stairs or a lift asleep passes the landing,
        // often heard from below (so it cannot wake it), and then only that level's regions. The
        // nearest quiet one of every other level within the horizon is shielded before the rest.
        var levels: Set<String> = [here.level]
        for (t, target) in targets.enumerated() where chosen.count < budget && !target.warm {
            if let level = regions[target.region].position?.level, levels.insert(level).inserted, !shielded[t] { shield(t) }
        }
        var unshieldedFrom = 0
        while chosen.count < budget {
            while unshieldedFrom < targets.count, shielded[unshieldedFrom] { unshieldedFrom += 1 }
            guard unshieldedFrom < targets.count else { break }
            shield(unshieldedFrom)
        }
        // Only a quiet region can wake the phone by coming into range: however far they are, the
        // reserve goes to the nearest of them when the horizon holds too few.
        var frontierCount = chosen.count(where: { $0.slot == .frontier })
        for candidate in quiet.sorted(by: {
            ($0.warm ? 1 : 0, $0.walking, regions[$0.region].id) < ($1.warm ? 1 : 0, $1.walking, regions[$1.region].id)
        })
        where frontierCount < reserve && chosen.count < budget && !taken.contains(candidate.region) {
            take(candidate, .frontier)
            frontierCount += 1
        }
        // Past the horizon or the slots: how far the phone may walk before an unshielded region.
        var validFor = Double.infinity
        for (t, target) in targets.enumerated() where !shielded[t] {
            validFor = target.walking
            break
        }
        if validFor == .infinity, let beyond = quiet.first(where: { $0.walking > configuration.horizon && !taken.contains($0.region) }) {
            validFor = beyond.walking
        }

        // 4. Nearest: incumbents first, then by walking distance.
        let rest = candidates.filter { !taken.contains($0.region) }
            .sorted {
                (monitored.contains($0.region) ? 0 : 1, $0.walking, regions[$0.region].id) < (
                    monitored.contains($1.region) ? 0 : 1, $1.walking, regions[$1.region].id
                )
            }
        for candidate in rest where chosen.count < budget { take(candidate, .nearest) }

        // Hysteresis: the set monitored now is repaired instead (the regions in range the new set
        // monitors added, its farthest members dropped for them) while its shields still reach
        // within `keepTolerance` metres of the new set's.
        if let kept = keep(request: request, monitored: monitored, candidates: candidates, budget: budget, fresh: chosen, reach: validFor) {
            return kept
        }

        return RegionPlan(chosen: chosen, for: request, monitored: monitored, validFor: validFor, budget: budget)
    }

    /// The monitored set repaired rather than replaced, when that does the job nearly as well as
    /// `fresh`: the regions in range that `fresh` monitors are added, making room by dropping the
    /// farthest members that are neither pinned nor in range, and the result's shields must reach
    /// within ``FrontierPlannerConfiguration/keepTolerance`` of `fresh`'s. `nil` otherwise.
    private func keep(
        request: PlanRequest, monitored: Set<Int>, candidates: [Candidate], budget: Int, fresh: [PlannedRegion], reach: Double
    ) -> RegionPlan? {
        guard !monitored.isEmpty, monitored.count == request.monitored.count else { return nil }
        let freshSet = Set(fresh.map(\.region))
        let pinned = Set(topology.pinnedRegions.prefix(budget))
        guard pinned.isSubset(of: monitored) else { return nil }
        let byRegion = Dictionary(candidates.map { ($0.region, $0) }, uniquingKeysWith: { first, _ in first })
        func approaching(_ region: Int) -> Bool { byRegion[region]?.isApproaching ?? false }
        // In range and monitored by the new set, but not by the old: these are added.
        let missing = candidates.filter { approaching($0.region) && freshSet.contains($0.region) && !monitored.contains($0.region) }.map(
            \.region)
        var kept = request.monitored
        let excess = kept.count + missing.count - budget
        if excess > 0 {
            let evictable = kept.filter { !pinned.contains($0) && !approaching($0) }
                .sorted { (byRegion[$0]?.walking ?? .infinity, $0) > (byRegion[$1]?.walking ?? .infinity, $1) }
            guard evictable.count >= excess else { return nil }
            let evicted = Set(evictable.prefix(excess))
            kept.removeAll { evicted.contains($0) }
        }
        let set = Set(kept).union(missing)
        // It must hold an exit wire too when the new set does (a region in range).
        let inRange = { (region: Int) in byRegion[region]?.detectable == true }
        guard !fresh.contains(where: { inRange($0.region) }) || set.contains(where: inRange) else { return nil }
        // How far the set's shields reach: the first quiet region neither monitored nor shielded.
        let shields = candidates.filter { !$0.detectable && set.contains($0.region) }.map(\.region)
        var keptReach = Double.infinity
        for candidate in candidates.sorted(by: { $0.walking < $1.walking })
        where !candidate.detectable && candidate.walking <= configuration.horizon && !set.contains(candidate.region)
            && !shields.contains(where: { self.shields($0, candidate.region) })
        {
            keptReach = candidate.walking
            break
        }
        guard keptReach >= Swift.min(reach, configuration.horizon) - configuration.keepTolerance else { return nil }
        // It must keep as many quiet regions (the only ones that can wake the phone) as the new set.
        let quietInFresh = fresh.count(where: { byRegion[$0.region].map { !$0.detectable } ?? false })
        guard shields.count >= quietInFresh else { return nil }
        let chosen = (kept + missing).map { index -> PlannedRegion in
            let slot: PlannedRegion.Slot = pinned.contains(index) ? .pinned : byRegion[index]?.detectable == true ? .inside : .frontier
            let walking = byRegion[index]?.walking
            return PlannedRegion(
                region: index, id: topology.regions[index].id, slot: slot, distance: walking.flatMap { $0.isFinite ? $0 : nil })
        }
        return RegionPlan(chosen: chosen, for: request, monitored: monitored, validFor: keptReach, budget: budget)
    }

    /// Whether monitoring quiet region `shield` guarantees a wake before a phone arrives at
    /// `target`: `target`'s arrival disk, grown by the wake margin, lies within `shield`'s
    /// detection range on the same level.
    public func shields(_ shield: Int, _ target: Int) -> Bool {
        guard let a = topology.regions[shield].position, let b = topology.regions[target].position, a.level == b.level else { return false }
        let apart = a.distance(to: b)
        return apart + topology.regions[target].radius + configuration.wakeMargin <= detectionRanges[shield]
    }

    /// The walking distance to a region's edge the plan goes by: the graph's, but never more than
    /// ``FrontierPlannerConfiguration/detourLimit`` times the straight line on the same level, or
    /// on another level than the walk up a link (`detourLimit` times the straight line to its
    /// foot, plus its length) and `detourLimit` times the straight line from where it lands. The
    /// estimate is snapped to the walkable graph, and on a sparse one (a waypoint per room) a few
    /// metres of position error put it on a segment whose route to a region nearby goes round; and
    /// a graph's route to a region's own node may go round where the phone passes within its
    /// radius on the way elsewhere (past a room's beacon by the wall, from the top of the stairs).
    func walking(_ distance: Double, to position: VenuePoint, straight: Double, radius: Double, landings: [Landing]) -> Double {
        guard straight == .infinity else { return Swift.min(distance, Swift.max(0, straight - radius) * configuration.detourLimit) }
        guard !landings.isEmpty, let level = topology.levelIndex(id: position.level) else { return distance }
        var best = distance
        for landing in landings where landing.level == level {
            let across = landing.distance(x: position.x, y: position.y)
            best = Swift.min(best, landing.walking + Swift.max(0, across - radius) * configuration.detourLimit)
        }
        return best
    }

    /// Where the links between levels within the horizon land, from the phone's level and on from
    /// where they land (a stair core climbed two floors at once), each with the walk there:
    /// `detourLimit` times the straight line to each link's foot, plus its length.
    func landings(from here: VenuePoint) -> [Landing] {
        guard let level = topology.levelIndex(id: here.level) else { return [] }
        var landings: [Landing] = []
        var open = [Landing(level: level, x: here.x, y: here.y, walking: 0)]
        while let from = open.popLast() {
            for link in topology.roomGraph.connectors(on: from.level) where link.toLevel != level {
                let foot = from.distance(x: link.x, y: link.y)
                let landing = Landing(
                    level: link.toLevel, x: link.toX, y: link.toY, walking: from.walking + foot * configuration.detourLimit + link.length)
                guard landing.walking <= configuration.horizon,
                    !landings.contains(where: {
                        $0.level == landing.level && $0.x == landing.x && $0.y == landing.y && $0.walking <= landing.walking
                    })
                else { continue }
                landings.append(landing)
                open.append(landing)
            }
        }
        return landings
    }

    /// Where a link between levels lands, and the walk there from the phone.
    struct Landing {
        var level: Int
        var x: Double
        var y: Double
        var walking: Double

        /// The straight line from it to (x, y) on its level.
        func distance(x: Double, y: Double) -> Double { ((self.x - x) * (self.x - x) + (self.y - y) * (self.y - y)).squareRoot() }
    }

    private struct Candidate {
        var region: Int
        /// Walking distance to the region's edge.
        var walking: Double
        /// Straight-line distance to its beacon on the same level (`.infinity` on another level).
        var straight: Double
        /// iOS may detect its beacon now (reported inside, or within range plus uncertainty).
        var detectable: Bool
        /// Within its radius: the phone is there.
        var arrived: Bool
        /// Quiet by what the phone showed, but its beacon was ranged lately (``PlanRequest/warm``):
        /// added now it may start inside; a trip wire of last resort.
        var warm: Bool
        /// iOS has told the app it is inside on this approach (``PlanRequest/told``).
        var told: Bool

        /// In range and still to be told: not yet arrived at (by the estimate), or arrived at but
        /// never told (the estimate may run ahead of the phone).
        var isApproaching: Bool { detectable && (!arrived || !told) }
    }
}

/// The ``FrontierPlanner``'s tuning.
public struct FrontierPlannerConfiguration: Sendable, Hashable {
    /// Region slots per client when the client does not ask for fewer (iOS allows 20).
    public var budget: Int
    /// Metres between the wake (crossing into a shield's detection range) and the arrival it
    /// must precede: the walk while a suspended phone's late background scan notices the beacon
    /// (seconds, IOS.md) and during the app's connect, report, plan and apply.
    public var wakeMargin: Double
    /// Quiet regions within this walking distance are shielded; farther ones wait for a later wake.
    public var horizon: Double
    /// Slots kept for the frontier however many regions the phone may be inside.
    public var frontierReserve: Int
    /// Regions ranked by walking distance to choose from.
    public var candidates: Int
    /// The set monitored now is kept while its shields reach within this many metres of walking
    /// of a new set's (and it monitors every region in range the new set would): a plan changes
    /// only when the phone has moved enough to need it.
    public var keepTolerance: Double
    /// Slots kept for the frontier of a phone that runs in the foreground (``PlanRequest/awake``),
    /// instead of ``frontierReserve``: it is planned as it walks, and needs a few trip wires only for
    /// when it is suspended again.
    public var foregroundReserve: Int
    /// Metres of walking a monitored region counts as nearer than it is when regions in range
    /// compete for slots: a region is swapped out only for one clearly nearer.
    public var incumbency: Double
    /// A region's walking distance counts as at most this many times its straight-line distance
    /// (same level): a detour longer than that is more likely the snapped estimate on the wrong
    /// segment than the phone's real route.
    public var detourLimit: Double

    public init(
        budget: Int = 20, wakeMargin: Double = 8, horizon: Double = 40, frontierReserve: Int = 8, candidates: Int = 120,
        keepTolerance: Double = 10, incumbency: Double = 5, foregroundReserve: Int = 2, detourLimit: Double = 1.5
    ) {
        self.detourLimit = detourLimit
        self.foregroundReserve = foregroundReserve
        self.keepTolerance = keepTolerance
        self.incumbency = incumbency
        self.budget = budget
        self.wakeMargin = wakeMargin
        self.horizon = horizon
        self.frontierReserve = frontierReserve
        self.candidates = candidates
    }
}
