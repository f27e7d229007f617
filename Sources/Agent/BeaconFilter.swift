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
        return deniedAddresses.isEmpty || !deniedAddresses.contains(observation.address)
    }
}
