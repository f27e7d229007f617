/// One decoded beacon advertisement as the agent aggregates it: a compact, allocation-free value.
public struct BeaconObservation: Sendable, Equatable {
    /// Exactly one format.
    public var format: BeaconFormats
    /// iBeacon / AltBeacon: the UUID (AltBeacon: the first 16 bytes of its beacon id).
    /// Eddystone-UID: the 10-byte namespace followed by the 6-byte instance. Zero otherwise.
    public var uuid: BeaconUUID
    /// iBeacon major and minor (AltBeacon: the last 4 bytes of its beacon id); zero otherwise.
    public var major: UInt16
    public var minor: UInt16
    /// The advertiser's address.
    public var address: DeviceAddress
    /// The RSSI of a report whose controller said "not available" (0x7F).
    public static let unknownRSSI = 127

    /// Received signal strength, dBm (``unknownRSSI`` when the controller did not measure it).
    public var rssi: Int
    /// Measured power: at 1 m for iBeacon and AltBeacon, at 0 m for Eddystone; `nil` when absent.
    public var txPower: Int?
    /// When it was heard, microseconds since 1970.
    public var timeMicros: Int64

    public init(format: BeaconFormats, uuid: BeaconUUID = BeaconUUID(high: 0, low: 0), major: UInt16 = 0, minor: UInt16 = 0, address: DeviceAddress, rssi: Int, txPower: Int?, timeMicros: Int64) {
        self.format = format
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.timeMicros = timeMicros
    }
}
