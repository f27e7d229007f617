public import WireProtocol

/// What RegionSync remembers between wakes (the app is usually terminated in between).
public struct RegionSyncState: Codable, Sendable, Equatable {
    /// The `regions` version applied last; `nil` before the first.
    public var version: UInt64?
    /// That version's whole set, in the message's priority order: the set a following diff
    /// applies to.
    public var regions: [RegionRef]
    /// The region ids last known inside: the baseline re-delivered states are compared with.
    public var inside: [String]

    public init(version: UInt64? = nil, regions: [RegionRef] = [], inside: [String] = []) {
        self.version = version
        self.regions = regions
        self.inside = inside
    }
}
