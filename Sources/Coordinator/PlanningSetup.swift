import Planner
public import Topology

/// How to build a venue's planner and estimator: a `Sendable` recipe, so the (non-`Sendable`,
/// scratch-holding) planner is made inside the task that uses it.
public struct PlanningSetup: Sendable {
    private let build: @Sendable () throws -> (any RegionPlanning, any LocationEstimating)

    public init(_ build: @escaping @Sendable () throws -> (any RegionPlanning, any LocationEstimating)) {
        self.build = build
    }

    /// Builds a planner and an estimator.
    public func make() throws -> (any RegionPlanning, any LocationEstimating) { try build() }

    /// The production setup: walking distance on the topology's graph and its radio filter.
    public static func walkingDistance(_ topology: Topology, budget: Int, radioFilter: Bool = true) -> PlanningSetup {
        PlanningSetup {
            let planner = WalkingDistancePlanner(topology: topology, configuration: PlannerConfiguration(budget: budget))
            guard radioFilter else { return (planner, WeightedCentroidEstimator()) }
            return (planner, try FilterLocationEstimator(topology: topology, venue: planner.venue))
        }
    }

    /// Straight-line planning and a weighted centroid on `venue` (no graph needed).
    public static func straightLine(_ venue: VenueIndex) -> PlanningSetup {
        PlanningSetup { (StraightLinePlanner(venue: venue), WeightedCentroidEstimator()) }
    }
}
