/// One region of a plan: which slot it holds and how far away it is.
public struct PlannedRegion: Sendable, Hashable {
    /// Why a region is in the set.
    public enum Slot: String, Sendable, Hashable {
        /// Tagged `pinned`: always monitored.
        case pinned
        /// The client is inside it: kept while inside.
        case inside
        /// Among the nearest by walking distance.
        case nearest
        /// A quiet region (not detectable now) whose detection wakes a suspended phone before it
        /// can reach the regions it shields (``FrontierPlanner``).
        case frontier
    }

    /// Index into ``Topology/regions``.
    public var region: Int
    /// The region's topology id (its iOS identifier).
    public var id: String
    public var slot: Slot
    /// Walking distance in metres to the region's edge; nil for a region without a position or
    /// not reachable from the client.
    public var distance: Double?
}
