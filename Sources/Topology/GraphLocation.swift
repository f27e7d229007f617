/// A place on the walkable graph: a node, or a point part-way along a link, from which walking
/// distances are measured.
///
/// Get one from ``Topology/location(ofRegion:)`` or ``Topology/snap(_:)``.
///
/// It encodes as its point and offset, `{"level", "offset", "x", "y"}` (what `beaconfleet plan --json` prints).
public struct GraphLocation: Sendable, Hashable, Encodable {
    /// The point on the graph, in venue coordinates.
    public var x: Double
    public var y: Double
    /// The level's id.
    public var level: String
    /// Straight-line metres between the position asked for and this point on the graph (0 for
    /// a region's own location).
    public var offset: Double
    /// The link's end nodes and the walking distance from this point to each; `nodeB` is -1
    /// when the location is a node.
    let nodeA: Int32
    let nodeB: Int32
    let distanceToA: Double
    let distanceToB: Double

    init(x: Double, y: Double, level: String, offset: Double, nodeA: Int32, nodeB: Int32, distanceToA: Double, distanceToB: Double) {
        self.x = x
        self.y = y
        self.level = level
        self.offset = offset
        self.nodeA = nodeA
        self.nodeB = nodeB
        self.distanceToA = distanceToA
        self.distanceToB = distanceToB
    }

    private enum CodingKeys: String, CodingKey { case x, y, level, offset }

    /// The point as a venue position.
    public var point: VenuePoint { VenuePoint(x: x, y: y, level: level) }
}
