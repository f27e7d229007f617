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
}
