/// A point on the venue: metres on a level (the level's index in ``VenueIndex/levels``).
public struct LevelPoint: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var level: Int32

    public init(x: Double, y: Double, level: Int32) {
        self.x = x
        self.y = y
        self.level = level
    }

    /// Straight-line distance in metres on the same level; infinity across levels.
    @inline(__always) public func distance(to other: LevelPoint) -> Double {
        guard level == other.level else { return .infinity }
        let dx = x - other.x, dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }
}

