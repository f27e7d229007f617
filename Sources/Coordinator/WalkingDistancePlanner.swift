public import Foundation
public import Planner
public import Topology

/// The production planner: the topology's ``Planner/RegionPlanner`` (walking distance on the
/// graph, slot model, hysteresis) behind the coordinator's ``RegionPlanning``.
///
/// Keeps one ``Topology/WalkingDistanceSearch`` for its scratch memory, so it must be used from
/// one task (the coordinator's engine is).
public final class WalkingDistancePlanner: RegionPlanning {
    public let topology: Topology
    public let venue: VenueIndex
    public let planner: RegionPlanner
    private let search: WalkingDistanceSearch

    /// Plans on `topology` with `configuration` (its budget caps every client's).
    public init(topology: Topology, configuration: PlannerConfiguration = PlannerConfiguration()) {
        self.topology = topology
        self.venue = VenueIndex(topology: topology)
        self.planner = RegionPlanner(topology: topology, configuration: configuration)
        self.search = WalkingDistanceSearch(topology: topology)
    }

    public func plan(_ request: PlanningRequest) -> PlanningResult {
        let level = venue.levelName(request.point.level)
        let location: GraphLocation
        do {
            location = try topology.snap(VenuePoint(x: request.point.x, y: request.point.y, level: level))
        } catch {
            // No walkable graph on that level: keep what the client has.
            return PlanningResult(regions: request.previous, validFor: 0)
        }
        let plan = planner.plan(
            Planner.PlanRequest(location: location, monitored: request.previous.map { venue.regions[Int($0)].id },
                                inside: request.inside.map { venue.regions[Int($0)].id }, budget: request.budget,
                                now: Date(timeIntervalSince1970: 0)),
            using: search)
        return PlanningResult(regions: plan.regions.map { Int32($0.region) }, validFor: plan.validFor.isFinite ? plan.validFor : nil)
    }
}
