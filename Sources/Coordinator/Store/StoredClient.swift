public import WireProtocol

/// What survives a restart for one client: its version, its set, its position and when it was last seen.
public struct StoredClient: Sendable, Equatable {
    public var id: String
    public var version: UInt64
    /// Region topology ids in slot order.
    public var regions: [String]
    public var position: Position?
    /// Milliseconds since 1970.
    public var lastSeen: Int64
    public var isPhone: Bool
    /// The identity it advertises (`UUID.major.minor`), when known.
    public var beacon: String?
    public var budget: Int

    public init(
        id: String, version: UInt64, regions: [String], position: Position?, lastSeen: Int64, isPhone: Bool, beacon: String?, budget: Int
    ) {
        self.id = id
        self.version = version
        self.regions = regions
        self.position = position
        self.lastSeen = lastSeen
        self.isPhone = isPhone
        self.beacon = beacon
        self.budget = budget
    }
}
