/// A planner without a walking graph: pinned regions, then the regions the client is inside, then
/// the nearest by straight-line distance to each region's edge on the client's level, keeping
/// incumbents that still rank within `budget + margin` (hysteresis).
///
/// It is what the coordinator uses when the topology's `RegionPlanner` is not plugged in (unit
/// tests, the in-process ingest benchmark); it never sees through floors (other levels rank last).
public struct StraightLinePlanner: RegionPlanning, Sendable {
    public let venue: VenueIndex
    /// Extra ranks an incumbent may fall behind before it is replaced.
    public var margin: Int

    public init(venue: VenueIndex, margin: Int = 4) {
        self.venue = venue
        self.margin = margin
    }

    public func plan(_ request: PlanningRequest) -> PlanningResult {
        let budget = max(0, request.budget)
        var chosen: [Int32] = []
        chosen.reserveCapacity(budget)
        var taken = Set<Int32>()
        for index in venue.pinned where chosen.count < budget && taken.insert(index).inserted { chosen.append(index) }
        for index in request.inside where chosen.count < budget && taken.insert(index).inserted { chosen.append(index) }
        let free = budget - chosen.count
        guard free > 0 else { return PlanningResult(regions: chosen, validFor: 0) }
        // Rank every unpinned region by edge distance (fine for the few thousand regions of a test venue).
        var ranked: [(index: Int32, distance: Double)] = []
        ranked.reserveCapacity(venue.regions.count)
        for (i, region) in venue.regions.enumerated() where !region.pinned && !taken.contains(Int32(i)) {
            guard let point = region.point else { continue }
            let d = point.level == request.point.level
                ? max(0, point.distance(to: request.point) - region.radius)
                : 1_000_000 + Double(abs(point.level - request.point.level))
            ranked.append((Int32(i), d))
        }
        ranked.sort { $0.distance < $1.distance || ($0.distance == $1.distance && venue.regions[Int($0.index)].id < venue.regions[Int($1.index)].id) }
        let previous = Set(request.previous)
        let window = ranked.prefix(free + margin)
        // Incumbents within the hysteresis window stay; the rest of the slots go to the nearest newcomers.
        var keep = window.filter { previous.contains($0.index) }.prefix(free)
        if keep.count < free {
            for candidate in ranked where keep.count < free && !previous.contains(candidate.index) {
                keep.append(candidate)
            }
        }
        let ordered = keep.sorted { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) }
        chosen.append(contentsOf: ordered.map(\.index))
        // Valid until the client could reach the nearest region not monitored.
        let kept = Set(keep.map(\.index))
        let outside = ranked.first { candidate in !kept.contains(candidate.index) }
        return PlanningResult(regions: chosen, validFor: outside.map { max(0, $0.distance) })
    }
}
