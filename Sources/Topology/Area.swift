/// A room: a named polygon on one level (`areas.csv`). Where a venue has rooms, walls count: a
/// position belongs to the room that contains it, a client is inside a region only in the region's
/// room, and walking between rooms goes through the links (the doors).
public struct Area: Sendable, Hashable {
    /// The room's id (`[A-Za-z0-9._-]{1,64}`).
    public var id: String
    /// The level's id.
    public var level: String
    /// The name people read (events, `watch`, the map, Home Assistant); the id when empty.
    public var name: String
    /// Free-form kind, e.g. `room`, `walkway`, `stairs` (IMDF's unit category on import).
    public var kind: String
    /// The outline in local metres, counter-clockwise or clockwise, without repeating the first
    /// point at the end.
    public var polygon: Polygon
    public var source: SourceLocation

    /// The name to show: `name`, else the id.
    public var displayName: String { name.isEmpty ? id : name }
}

extension Area: TopologyRecord {}
