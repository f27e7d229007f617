/// A region and the walking distance to it.
public struct RegionDistance: Sendable, Hashable {
    /// Index into ``Topology/regions``.
    public var region: Int
    /// Metres of walking from the location to the region's edge: the distance to its centre
    /// minus its radius, never below 0 (0 means inside).
    public var distance: Double

    public init(region: Int, distance: Double) {
        self.region = region
        self.distance = distance
    }
}
