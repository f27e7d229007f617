public import BeaconKit
public import WireProtocol

/// The beacons a region matches, as iOS takes them: a UUID, narrowed by a major and then a minor
/// when present (`CLBeaconIdentityConstraint`, `CLMonitor.BeaconIdentityCondition`). A minor
/// without a major is not a region iOS can express; it is dropped.
public struct BeaconRegionIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The proximity UUID every matching beacon carries.
    public var uuid: BeaconUUID
    /// The major, or `nil` for every major.
    public var major: UInt16?
    /// The minor, or `nil` for every minor (always `nil` when `major` is).
    public var minor: UInt16?

    /// A region identity; `minor` is ignored when `major` is `nil`.
    public init(uuid: BeaconUUID, major: UInt16? = nil, minor: UInt16? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = major == nil ? nil : minor
    }

    /// The identity a `regions` message names for `region`; `nil` when its `uuid` is not a UUID.
    public init?(_ region: RegionRef) {
        guard let uuid = BeaconUUID(region.uuid) else { return nil }
        self.init(uuid: uuid, major: region.major, minor: region.minor)
    }

    /// Whether an advertisement with `beacon`'s identity is inside this region.
    public func matches(_ beacon: BeaconIdentity) -> Bool {
        beacon.kind == .uuidMajorMinor && beacon.uuid == uuid
            && (major.map { $0 == beacon.major } ?? true) && (minor.map { $0 == beacon.minor } ?? true)
    }

    /// `UUID`, `UUID.major` or `UUID.major.minor`.
    public var description: String {
        [uuid.description, major.map { "\($0)" }, minor.map { "\($0)" }].compactMap { $0 }.joined(separator: ".")
    }
}
