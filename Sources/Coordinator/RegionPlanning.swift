/// What the coordinator asks a planner for one client.
public struct PlanningRequest: Sendable {
    /// Where the client is believed to be.
    public var point: LevelPoint
    /// The set the client monitors now (region indices in the ``VenueIndex``), in slot order.
    public var previous: [Int32]
    /// Regions the client is inside: never removed while inside.
    public var inside: [Int32]
    /// Slots available.
    public var budget: Int

    public init(point: LevelPoint, previous: [Int32], inside: [Int32], budget: Int) {
        self.point = point
        self.previous = previous
        self.inside = inside
        self.budget = budget
    }
}

/// A planner's answer: the new set in slot order and how far it stays valid.
public struct PlanningResult: Sendable, Equatable {
    /// Region indices in the ``VenueIndex``, pinned first, then inside, then nearest.
    public var regions: [Int32]
    /// Metres of walking before the set must be re-planned, when the planner knows.
    public var validFor: Double?

    public init(regions: [Int32], validFor: Double? = nil) {
        self.regions = regions
        self.validFor = validFor
    }
}

/// Chooses the regions a client monitors: the topology's walking-distance planner in production,
/// a straight-line planner when no graph is loaded (tests, benchmarks of the coordinator alone).
///
/// Must be a pure function of its inputs. The coordinator calls it from one task for every
/// client, so an implementation may keep scratch memory (it need not be `Sendable`).
public protocol RegionPlanning {
    /// The venue the planner answers for; the coordinator resolves region indices through it.
    var venue: VenueIndex { get }
    /// Plans one client's monitored set.
    func plan(_ request: PlanningRequest) -> PlanningResult
}
