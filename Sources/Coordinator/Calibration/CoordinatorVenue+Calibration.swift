import BeaconKit
import Topology
import WireProtocol
public import Planner

extension CoordinatorVenue {
    /// The same venue with another estimator over the same anchors (a recalibrated one): the
    /// anchor indices the engine keeps stay valid; the presence estimator follows it.
    public func replacingEstimator(_ estimator: PositionEstimator) -> CoordinatorVenue {
        CoordinatorVenue(
            topology: topology, planner: planner, plannerChoice: plannerChoice, estimator: estimator, roomFilter: roomFilter,
            tracksPresence: tracksPresence, regionByBeacon: regionByBeacon,
            regionBeaconIDs: regionBeaconIDs, regionRefs: regionRefs, gatewayAnchor: gatewayAnchor, regionAnchor: regionAnchor)
    }

    /// The same venue with another planner (one planning with the powers phones ranged).
    func replacingPlanner(_ planner: any RegionPlanning) -> CoordinatorVenue {
        CoordinatorVenue(
            topology: topology, planner: planner, plannerChoice: plannerChoice, estimator: estimator, roomFilter: roomFilter,
            tracksPresence: tracksPresence, regionByBeacon: regionByBeacon,
            regionBeaconIDs: regionBeaconIDs, regionRefs: regionRefs, gatewayAnchor: gatewayAnchor, regionAnchor: regionAnchor)
    }

    private init(
        topology: Topology, planner: any RegionPlanning, plannerChoice: PlannerChoice, estimator: PositionEstimator, roomFilter: RoomFilter,
        tracksPresence: Bool,
        regionByBeacon: [BeaconIdentity: Int32], regionBeaconIDs: BeaconIDFilter, regionRefs: [RegionRef], gatewayAnchor: [Int32],
        regionAnchor: [Int32]
    ) {
        self.topology = topology
        self.planner = planner
        self.plannerChoice = plannerChoice
        self.estimator = estimator
        self.presenceEstimator = Self.presenceEstimator(estimator, topology: topology, tracksPresence: tracksPresence)
        self.roomFilter = roomFilter
        self.tracksPresence = tracksPresence
        self.regionByBeacon = regionByBeacon
        self.regionBeaconIDs = regionBeaconIDs
        self.regionRefs = regionRefs
        self.gatewayAnchor = gatewayAnchor
        self.regionAnchor = regionAnchor
    }
}
