import BeaconKit
public import Planner
public import Topology
import WireProtocol

/// A loaded venue as the coordinator uses it: the ``Topology/Topology``, the planner
/// (``Planner/FrontierPlanner`` by default, ``Planner/NearestPlanner`` as the baseline: ``PlannerChoice``)
/// and the ``Planner/PositionEstimator`` built on it (`PositionEstimator(topology:)`, the one
/// `beaconfleet simulate` measures), and the few packed lookups the engine's per-sighting path
/// needs. Region and gateway indices are the topology's; levels are named as the topology names
/// them.
///
/// Immutable and `Sendable`: built once per topology (re)load, off the engine's task.
public struct CoordinatorVenue: Sendable {
    public let topology: Topology
    /// The planner every client's set comes from.
    public let planner: any RegionPlanning
    public let plannerChoice: PlannerChoice
    public let estimator: PositionEstimator
    /// The estimator room presence goes by: ``estimator`` learning each client's own radio offset
    /// (``Planner/PositionEstimator/learningOffsets(gain:)`` at the venue's `presence-offset-gain`);
    /// `nil` where the venue tracks no presence or sets the gain to 0. Planning never goes by it:
    /// an offset pulls an estimate toward or away from every beacon, which the room shown gains by
    /// and a suspended phone's plan was measured to lose by (docs/presence.md).
    public let presenceEstimator: PositionEstimator?
    /// Room and floor presence over the venue's room graph (its `venue.conf` tuning).
    public let roomFilter: RoomFilter
    /// Whether presence has anything to show: rooms (`areas.csv`), or more than one level.
    let tracksPresence: Bool
    /// Region index (``Topology/Topology/regions``) by the full identity of its beacon (regions with
    /// a UUID, major and minor; the first region of an identity wins).
    let regionByBeacon: [BeaconIdentity: Int32]
    /// The few 16-byte ids the region beacons use, to skip most region lookups per sighting.
    let regionBeaconIDs: BeaconIDFilter
    /// Per region: what a phone registers (the wire form of its identity).
    let regionRefs: [RegionRef]
    /// Per gateway, per region: the estimator's anchor for it, or -1 when it has none.
    let gatewayAnchor: [Int32]
    let regionAnchor: [Int32]

    /// Builds the planner chosen (`budget` caps every client's) and the position estimator for
    /// `topology`; without an estimator `configuration`, the venue's radio (`venue.conf`'s power,
    /// path-loss exponent and shadowing) is the model for the beacons phones range, as it is for
    /// the detection ranges the planner works with, and its `walking-speed` and `velocity-gain`
    /// tune the filter (`PositionEstimatorConfiguration(venue:)`; its `anchors-per-estimate` the
    /// engine reads).
    public init(
        topology: Topology, budget: Int, planner choice: PlannerChoice = .frontier,
        estimator configuration: PositionEstimatorConfiguration? = nil
    ) throws(PositionError) {
        let estimator = try PositionEstimator(
            topology: topology, configuration: configuration ?? PositionEstimatorConfiguration(venue: topology))
        self.topology = topology
        self.planner = choice.planner(for: topology, budget: budget)
        self.plannerChoice = choice
        self.estimator = estimator
        self.roomFilter = RoomFilter(topology: topology)
        self.tracksPresence = !topology.areas.isEmpty || topology.levels.count > 1
        self.presenceEstimator = Self.presenceEstimator(estimator, topology: topology, tracksPresence: tracksPresence)
        var byBeacon = [BeaconIdentity: Int32](minimumCapacity: topology.regions.count)
        var refs: [RegionRef] = []
        refs.reserveCapacity(topology.regions.count)
        for (index, region) in topology.regions.enumerated() {
            let identity = region.identity
            refs.append(region.reference)
            if let key = identity.beacon, byBeacon[key] == nil {
                byBeacon[key] = Int32(index)
            }
        }
        self.regionByBeacon = byBeacon
        self.regionBeaconIDs = BeaconIDFilter(byBeacon.keys)
        self.regionRefs = refs
        self.gatewayAnchor = topology.gateways.map { gateway in estimator.anchorIndex(ofGateway: gateway.id).map(Int32.init) ?? -1 }
        self.regionAnchor = topology.regions.map { region in estimator.anchorIndex(ofRegion: region.id).map(Int32.init) ?? -1 }
    }

    /// ``presenceEstimator`` for `estimator`.
    static func presenceEstimator(_ estimator: PositionEstimator, topology: Topology, tracksPresence: Bool) -> PositionEstimator? {
        let gain = topology.presenceTuning.offsetGain
        return tracksPresence && gain > 0 ? estimator.learningOffsets(gain: gain) : nil
    }

    /// The region's topology id.
    @inline(__always) func id(ofRegion index: Int32) -> String { topology.regions[Int(index)].id }

    /// The estimator's level of a state, by the topology's name for it.
    @inline(__always) func level(of state: PositionState) -> String { estimator.levels[Int(state.level)] }

    /// Where an estimator state puts the client.
    @inline(__always) func point(of state: PositionState) -> VenuePoint {
        VenuePoint(x: state.x, y: state.y, level: level(of: state))
    }

    /// Non-pinned regions whose disc contains `point` and whose room (if any) is the point's,
    /// nearest centre first (ties by index).
    func regionsContaining(_ point: VenuePoint) -> [Int32] {
        let candidates = topology.regions(near: point, within: 0)
        guard !candidates.isEmpty else { return [] }
        var inside: [(index: Int32, distance: Double)] = []
        for index in candidates {
            let region = topology.regions[index]
            guard !region.isPinned, let centre = region.position, topology.sharesRoom(point, region: index) else { continue }
            inside.append((Int32(index), point.distance(to: centre)))
        }
        inside.sort { $0.distance < $1.distance || ($0.distance == $1.distance && $0.index < $1.index) }
        return inside.map(\.index)
    }
}
