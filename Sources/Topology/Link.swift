/// How a walkable connection is walked.
public enum LinkKind: String, Sendable, Hashable, CaseIterable {
    /// Level ground (the default).
    case walk
    /// Through a door.
    case door
    case ramp
    /// Between levels.
    case stairs
    case escalator
    case lift

    /// Whether this kind may join two different levels.
    public var joinsLevels: Bool {
        switch self {
        case .stairs, .escalator, .lift, .ramp: true
        case .walk, .door: false
        }
    }
}

/// A walkable connection between two nodes (regions or waypoints), walkable both ways.
public struct Link: Sendable, Hashable {
    /// Node ids (a region's or a waypoint's id).
    public var from: String
    public var to: String
    /// Walking distance in metres: explicit in `links.csv`, or the straight line between the
    /// two nodes on one level.
    public var distance: Double
    /// Whether `distance` was derived from the positions rather than written.
    public var isDerived: Bool
    public var kind: LinkKind
    public var source: SourceLocation
}
