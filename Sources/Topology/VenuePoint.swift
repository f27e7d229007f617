/// A point of the venue: metres east (`x`) and north (`y`) of the venue's origin, on a level.
public struct VenuePoint: Sendable, Hashable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    /// The level's id, as `levels.csv` names it.
    public var level: String

    public init(x: Double, y: Double, level: String) {
        self.x = x
        self.y = y
        self.level = level
    }

    /// Straight-line distance in metres on the same level; infinity across levels.
    @inlinable public func distance(to other: VenuePoint) -> Double {
        guard level == other.level else { return .infinity }
        let dx = x - other.x
        let dy = y - other.y
        return (dx * dx + dy * dy).squareRoot()
    }

    /// `X,Y,LEVEL`, the form `beaconfleet plan --at` reads.
    public var description: String { "\(x),\(y),\(level)" }

    /// Reads `X,Y,LEVEL` (spaces allowed around the commas).
    public init(parsing text: some StringProtocol) throws(TopologyQueryError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(trimmedField)
        guard parts.count == 3, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite,
            !parts[2].isEmpty
        else { throw .malformedPosition(String(text)) }
        self.init(x: x, y: y, level: parts[2])
    }
}

/// The text without leading and trailing spaces and tabs.
func trimmedField(_ text: some StringProtocol) -> String {
    var s = Substring(text)
    while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
    while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
    return String(s)
}
