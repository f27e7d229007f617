/// A walkable point without a beacon: a corridor bend, a door, the foot of a stair.
public struct Waypoint: Sendable, Hashable {
    public var id: String
    public var position: VenuePoint
    public var source: SourceLocation

    public init(id: String, position: VenuePoint, source: SourceLocation) {
        self.id = id
        self.position = position
        self.source = source
    }
}
