public import BeaconKit

/// Which advertisements the agent keeps: by format, UUID, signal strength and address.
///
/// The UUID allow-list applies to iBeacon and AltBeacon; Eddystone frames are kept or dropped by
/// their format alone.
public struct BeaconFilter: Sendable, Equatable {
    /// Formats to keep.
    public var formats: BeaconFormat.Set
    /// UUIDs to keep; empty keeps every UUID.
    public var allowedUUIDs: Set<BeaconUUID>
    /// Advertisements weaker than this (dBm) are dropped.
    public var minimumRSSI: Int
    /// Advertisers whose advertisements are dropped.
    public var deniedAddresses: Set<BluetoothAddress>
    /// The identities the coordinator asks to publish (``Keep``); `nil`: every identity.
    public var keep: Keep?

    public init(
        formats: BeaconFormat.Set = .published, allowedUUIDs: Set<BeaconUUID> = [], minimumRSSI: Int = -127,
        deniedAddresses: Set<BluetoothAddress> = []
    ) {
        self.formats = formats
        self.allowedUUIDs = allowedUUIDs
        self.minimumRSSI = minimumRSSI
        self.deniedAddresses = deniedAddresses
    }

    /// Whether `observation` passes.
    @inline(__always)
    public func admits(_ observation: BeaconObservation) -> Bool {
        guard formats.contains(observation.format), observation.rssi >= minimumRSSI else { return false }
        if !allowedUUIDs.isEmpty, observation.identity.kind == .uuidMajorMinor, !allowedUUIDs.contains(observation.identity.uuid) {
            return false
        }
        if let keep, !keep.admits(observation) { return false }
        return deniedAddresses.isEmpty || !deniedAddresses.contains(observation.address)
    }

    /// Which identities to publish, as the coordinator's gateway configuration lists them: an
    /// advertisement passes when one rule matches it.
    public struct Keep: Sendable, Equatable {
        /// iBeacon and AltBeacon identities with this UUID and a major in the range.
        public struct UUIDRule: Sendable, Equatable {
            public var uuid: BeaconUUID
            public var majors: ClosedRange<UInt16> = 0...UInt16.max
        }

        public var uuids: [UUIDRule] = []
        /// Eddystone-UID identities in these namespaces.
        public var namespaces: [EddystoneNamespace] = []
        /// Any frame from an advertiser address in one of these ranges.
        public var addresses: [ClosedRange<UInt64>] = []

        /// Whether a rule matches `observation`.
        @inline(__always)
        public func admits(_ observation: BeaconObservation) -> Bool {
            let identity = observation.identity
            switch identity.kind {
            case .uuidMajorMinor:
                for rule in uuids
                where rule.uuid.high == identity.high && rule.uuid.low == identity.low && rule.majors.contains(identity.major) {
                    return true
                }
            case .eddystoneUID:
                if namespaces.contains(identity.namespace) { return true }
            case .address:
                break
            }
            let address = observation.address.rawValue
            return addresses.contains { $0.contains(address) }
        }
    }
}
