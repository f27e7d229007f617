/// An iBeacon advertisement: manufacturer data `4C 00` (Apple), type `02`, length `15`, then the
/// proximity UUID (16 bytes as written), major and minor (big-endian) and the measured power.
public struct IBeacon: Sendable, Hashable {
    /// The proximity UUID.
    public var uuid: BeaconUUID
    /// The major value.
    public var major: UInt16
    /// The minor value.
    public var minor: UInt16
    /// The calibrated RSSI at 1 m, in dBm (a signed byte, e.g. −59).
    public var measuredPower: Int8

    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }

    /// The manufacturer data that carries this beacon (company id first, as in the AD structure).
    public var manufacturerData: [UInt8] {
        var bytes: [UInt8] = [0x4C, 0x00, 0x02, 0x15]
        bytes += uuid.bytes
        bytes += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), UInt8(bitPattern: measuredPower)]
        return bytes
    }
}
