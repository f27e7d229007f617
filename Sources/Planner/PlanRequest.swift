public import Foundation
public import Topology

/// Everything a plan depends on besides the topology and the configuration: where the client
/// is, what it monitors now, which regions it is inside, its budget, and the time.
///
/// Regions are the topology's indices (``Topology/Topology/regions``), as the plan answers them
/// (``PlannedRegion/region``, ``RegionPlan/removed``): a caller holding ids maps them once with
/// ``Topology/Topology/regionIndex(id:)``, and an id the topology does not know is the caller's to
/// remove (it can never be planned).
public struct PlanRequest: Sendable, Hashable {
    /// Where the client is on the walkable graph (see ``Topology/snap(_:)``).
    public var location: GraphLocation
    /// The regions the client monitors now (its own `monitored` list when it reported one, else
    /// the last plan), in its order: the plan's removals keep it.
    public var monitored: [Int]
    /// Regions the client says it is inside (from enter events without a matching exit); never
    /// removed while listed here.
    public var inside: [Int]
    /// Regions whose beacons the phone ranged recently enough that its iOS may count them in range:
    /// *inside* the moment they are monitored (no enter), so no use for waking it.
    public var heard: [Int]
    /// Regions whose beacons the phone ranged lately, but longer ago than what its iOS counts as in
    /// range (as far as its reports showed): quiet, though added now iOS might still count them
    /// *inside* (real phones take up to 30 s): trip wires of last resort.
    public var warm: [Int]
    /// Regions in range that iOS has already told the app it is inside on this approach (an enter,
    /// or the answer to `requestState`): the approach is covered, so a region in range not yet
    /// told takes the slot first.
    public var told: [Int]
    /// The phone says its app is in the foreground: it reports every second and is planned as it
    /// walks (a phone that does not say is planned for its next wake).
    public var awake: Bool
    /// Monitored regions whose iOS state the planner's caller may have missed (a coordinator
    /// cut off from the phone's reports saw none of the enters iOS fired meanwhile): judged as
    /// regions not monitored are, by what the phone ranged and the geometry, not by their absence
    /// from ``inside``. Otherwise a region the phone is in passes
    /// for quiet and takes a frontier slot it can never wake the phone from.
    public var stateUnknown: [Int]
    /// The client's own budget, when it asked for fewer slots than the configuration's.
    public var budget: Int?
    /// The injected clock's reading: the plan is stamped with it.
    public var now: Date
    /// How uncertain the position is, in metres (the estimator's confidence radius; 0 = exact).
    /// Regions whose edge lies within this straight-line distance of the location (plus its snap
    /// offset) on the same level are monitored before the others: the client may really be
    /// there, on the far side of a wall the walking distance goes around.
    public var uncertainty: Double

    public init(
        location: GraphLocation, monitored: [Int] = [], inside: [Int] = [], heard: [Int] = [], warm: [Int] = [], told: [Int] = [],
        awake: Bool = false,
        stateUnknown: [Int] = [], budget: Int? = nil, uncertainty: Double = 0, now: Date
    ) {
        self.location = location
        self.monitored = monitored
        self.inside = inside
        self.heard = heard
        self.warm = warm
        self.told = told
        self.awake = awake
        self.stateUnknown = stateUnknown
        self.budget = budget
        self.uncertainty = uncertainty
        self.now = now
    }
}
