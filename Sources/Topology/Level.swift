/// A floor of the venue. Positions name their level by `id`.
public struct Level: Sendable, Hashable {
    /// Short stable id, for example `L0` or `ground`.
    public var id: String
    /// Human-readable name (may be empty).
    public var name: String
    /// Height of the floor in metres (informative; walking between levels costs what its links say).
    public var elevation: Double
    public var source: SourceLocation

    public init(id: String, name: String = "", elevation: Double = 0, source: SourceLocation) {
        self.id = id
        self.name = name
        self.elevation = elevation
        self.source = source
    }
}
