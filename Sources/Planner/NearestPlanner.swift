public import Topology

/// Chooses the regions a client monitors: a pure, deterministic function of the topology, the
/// configuration and a ``PlanRequest`` (location, monitored set, inside set, budget, clock).
///
/// The slot model:
/// 1. pinned regions (by id), as many as the budget holds;
/// 2. the regions the client is inside (its walking distance to their edge is 0, or it reported
///    entering them), never removed while inside;
/// 3. the nearest regions by walking distance to their edge (ties by id) in the slots left;
///    when the request gives a position ``PlanRequest/uncertainty``, the regions within that
///    straight-line distance on the same level are taken first (the client may be in them).
///
/// Hysteresis keeps churn low: a monitored region stays while it ranks within the free slots
/// plus ``PlannerConfiguration/margin``; a nearer region replaces it only when nearer by more
/// than ``PlannerConfiguration/swapThreshold`` metres, or when it is within
/// ``PlannerConfiguration/guardDistance``. With no previous set, the plan is exactly the
/// nearest regions.
///
/// ```swift
/// let planner = NearestPlanner(topology: venue)
/// let search = WalkingDistanceSearch(topology: venue)     // one per task
/// let plan = planner.plan(PlanRequest(location: try venue.snap(point), monitored: previous.ids, now: clock.now), using: search)
/// ```
public struct NearestPlanner: RegionPlanning {
    public let topology: Topology
    public var configuration: PlannerConfiguration

    public init(topology: Topology, configuration: PlannerConfiguration = PlannerConfiguration()) {
        self.topology = topology
        self.configuration = configuration
    }

    /// Plans using `search`'s scratch memory (`search` must be on the same topology).
    public func plan(_ request: PlanRequest, using search: WalkingDistanceSearch) -> RegionPlan {
        precondition(search.topology === topology, "the search runs on another topology")
        let budget = request.slots(cappedAt: configuration.budget)
        let margin = Swift.max(0, configuration.margin)
        let regions = topology.regions

        let monitored = Set(request.monitored)

        var chosen: [PlannedRegion] = []
        chosen.reserveCapacity(budget)
        var taken = Set<Int>()
        taken.reserveCapacity(budget * 2)

        // 1. Pinned.
        let pinned = topology.pinnedRegions.prefix(budget)
        for index in pinned { taken.insert(index) }

        // The ranking: enough regions to decide every slot and find the nearest unmonitored one.
        let reportedInside = request.inside
        // Regions the client may really be in, given how uncertain its position is.
        let nearby =
            request.uncertainty > 0 && budget > 0
            ? topology.regions(near: request.location.point, within: request.uncertainty + request.location.offset) : []
        let rankingCount = budget + margin + pinned.count + reportedInside.count + nearby.count + 1
        let ranking = budget == 0 ? [] : search.nearestRegions(from: request.location, count: rankingCount)
        var distanceOf: [Int: Double] = [:]
        distanceOf.reserveCapacity(ranking.count)
        for entry in ranking { distanceOf[entry.region] = entry.distance }
        // Distances of pinned and reported-inside regions beyond the ranking.
        let unranked = (Array(pinned) + reportedInside + nearby).filter { distanceOf[$0] == nil && topology.location(ofRegion: $0) != nil }
        if !unranked.isEmpty {
            for (index, distance) in zip(unranked, search.distances(from: request.location, toRegions: unranked)) {
                if let distance { distanceOf[index] = distance }
            }
        }
        for index in pinned {
            chosen.append(PlannedRegion(region: index, id: regions[index].id, slot: .pinned, distance: distanceOf[index]))
        }

        // 2. Inside: distance 0 in the ranking, or reported. Incumbents first if slots run short.
        var inside: [(index: Int, distance: Double, order: Int)] = []
        for (order, entry) in ranking.enumerated() where entry.distance == 0 && !taken.contains(entry.region) {
            inside.append((entry.region, 0, order))
        }
        for index in reportedInside where !taken.contains(index) && !inside.contains(where: { $0.index == index }) {
            inside.append((index, distanceOf[index] ?? .infinity, ranking.count + inside.count))
        }
        inside.sort { ($0.distance, $0.order) < ($1.distance, $1.order) }
        let insideSlots = budget - chosen.count
        if inside.count > insideSlots {
            let incumbents = inside.filter { monitored.contains($0.index) }
            let others = inside.filter { !monitored.contains($0.index) }
            inside = Array((incumbents + others).prefix(insideSlots))
            inside.sort { ($0.distance, $0.order) < ($1.distance, $1.order) }
        }
        for entry in inside {
            taken.insert(entry.index)
            chosen.append(PlannedRegion(region: entry.index, id: regions[entry.index].id, slot: .inside, distance: distanceOf[entry.index]))
        }

        // 3. Nearest, with hysteresis.
        let free = budget - chosen.count
        var candidates = ranking.filter { !taken.contains($0.region) }
        var forced = Set<Int>()
        if !nearby.isEmpty {
            let ranked = Set(candidates.map(\.region))
            var extra = false
            for index in nearby where !taken.contains(index) && !ranked.contains(index) {
                guard let distance = distanceOf[index] else { continue }
                candidates.append(RegionDistance(region: index, distance: distance))
                extra = true
            }
            if extra { candidates.sort { ($0.distance, regions[$0.region].id) < ($1.distance, regions[$1.region].id) } }
            forced = Set(nearby.filter { !taken.contains($0) })
        }
        var selected = [Bool](repeating: false, count: candidates.count)
        var selectedCount = 0
        // Regions within the position's uncertainty that are monitored stay first; then the
        // incumbents ranked within free + margin (the best `free` of them); then the other regions
        // within the uncertainty, nearest first. Putting every uncertain region ahead of the
        // incumbents swapped sets back and forth as the estimate wandered (museum churn ratio
        // 0.52 against the 0.50 target).
        for (rank, candidate) in candidates.enumerated()
        where selectedCount < free && forced.contains(candidate.region) && monitored.contains(candidate.region) {
            selected[rank] = true
            selectedCount += 1
        }
        for (rank, candidate) in candidates.enumerated() where rank < free + margin && selectedCount < free {
            if monitored.contains(candidate.region) && !selected[rank] {
                selected[rank] = true
                selectedCount += 1
            }
        }
        for (rank, candidate) in candidates.enumerated() where selectedCount < free && forced.contains(candidate.region) && !selected[rank]
        {
            selected[rank] = true
            selectedCount += 1
        }
        // Fill with the nearest others.
        for rank in candidates.indices where selectedCount < free && !selected[rank] {
            selected[rank] = true
            selectedCount += 1
        }
        // Swaps: an ideal region left out replaces the farthest kept incumbent outside the ideal
        // set when it is nearer by more than the threshold, or within the guard distance.
        if free > 0 {
            var outsiders = (Swift.min(free, candidates.count)..<candidates.count).filter {
                selected[$0] && !forced.contains(candidates[$0].region)
            }  // ascending distance
            for challenger in 0..<Swift.min(free, candidates.count) where !selected[challenger] {
                guard let worst = outsiders.last else { break }
                let gain = candidates[worst].distance - candidates[challenger].distance
                guard gain > configuration.swapThreshold || candidates[challenger].distance <= configuration.guardDistance else { break }
                selected[worst] = false
                selected[challenger] = true
                outsiders.removeLast()
            }
        }
        var validFor = Double.infinity
        for (rank, candidate) in candidates.enumerated() {
            if selected[rank] {
                chosen.append(
                    PlannedRegion(region: candidate.region, id: regions[candidate.region].id, slot: .nearest, distance: candidate.distance))
            } else if validFor == .infinity {
                validFor = candidate.distance
            }
        }
        // A ranking cut short means every reachable region was seen; otherwise regions beyond it
        // are at least as far as its last entry.
        if validFor == .infinity, ranking.count == rankingCount, let last = ranking.last {
            validFor = last.distance
        }

        // The smallest diff from what the client monitors.
        return RegionPlan(chosen: chosen, for: request, monitored: monitored, validFor: validFor, budget: budget)
    }
}
