/// The beacons a region matches, as iOS takes them (`CLBeaconIdentityConstraint`,
/// `CLMonitor.BeaconIdentityCondition`): a UUID, narrowed by a major and then a minor.
///
/// A UUID alone is a venue-wide wildcard region, UUID + major a wildcard over one group of
/// beacons (for example a level), UUID + major + minor one beacon. The topology's regions, the
/// phone library's monitored regions and the wire's region references all mean this.
public struct RegionIdentity: Sendable, Hashable, Comparable, LosslessStringConvertible {
    public var uuid: BeaconUUID
    public var major: UInt16?
    public var minor: UInt16?

    /// A region identity; a `minor` without a `major` is not a region iOS can express and is
    /// dropped (the topology's loader refuses such a row with its file and line).
    public init(uuid: BeaconUUID, major: UInt16? = nil, minor: UInt16? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = major == nil ? nil : minor
    }

    /// Whether the identity matches many beacons (major or minor absent).
    public var isWildcard: Bool { minor == nil }

    /// The identity of the one beacon this region is, when it names one (UUID, major and minor).
    public var beacon: BeaconIdentity? {
        guard let major, let minor else { return nil }
        return BeaconIdentity(uuid: uuid, major: major, minor: minor)
    }

    /// Whether a beacon with `identity` (iBeacon or AltBeacon) is inside the region's identity.
    public func matches(_ identity: BeaconIdentity) -> Bool {
        identity.kind == .uuidMajorMinor && identity.uuid == uuid && (major == nil || major == identity.major)
            && (minor == nil || minor == identity.minor)
    }

    /// The UUID as iOS and the wire contract print it (upper case).
    public var uuidString: String { uuid.description }

    /// `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR`.
    public var description: String {
        var text = uuid.description
        if let major { text += ":\(major)" }
        if let minor { text += ":\(minor)" }
        return text
    }

    /// Reads ``description``'s form back: `UUID`, `UUID:MAJOR` or `UUID:MAJOR:MINOR`; `nil` for
    /// anything else.
    public init?(_ description: String) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count), let uuid = BeaconUUID(parts[0]) else { return nil }
        let numbers = parts.dropFirst().map { UInt16($0) }
        guard !numbers.contains(nil) else { return nil }
        self.init(uuid: uuid, major: numbers.first ?? nil, minor: numbers.dropFirst().first ?? nil)
    }

    public static func < (lhs: RegionIdentity, rhs: RegionIdentity) -> Bool {
        if lhs.uuid != rhs.uuid { return lhs.uuid < rhs.uuid }
        if lhs.major != rhs.major { return (lhs.major.map(Int.init) ?? -1) < (rhs.major.map(Int.init) ?? -1) }
        return (lhs.minor.map(Int.init) ?? -1) < (rhs.minor.map(Int.init) ?? -1)
    }
}
