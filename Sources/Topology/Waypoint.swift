/// A walkable point without a beacon: a corridor bend, a door, the foot of a stair.
public struct Waypoint: Sendable, Hashable {
    public var id: String
    public var position: VenuePoint
    public var source: SourceLocation
}
