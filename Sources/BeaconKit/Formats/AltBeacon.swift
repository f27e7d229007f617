/// An AltBeacon advertisement: manufacturer data with any company id, beacon code `BE AC`, a
/// 20-byte beacon id (read as a 16-byte UUID and two big-endian 16-bit values, as iBeacon's
/// identity is), the reference RSSI at 1 m and one manufacturer-reserved byte.
public struct AltBeacon: Sendable, Hashable {
    /// The manufacturer's company id (little-endian in the data).
    public var manufacturerID: UInt16
    /// The first 16 bytes of the beacon id.
    public var id1: BeaconUUID
    /// Bytes 17–18 of the beacon id.
    public var id2: UInt16
    /// Bytes 19–20 of the beacon id.
    public var id3: UInt16
    /// The calibrated RSSI at 1 m, in dBm.
    public var referenceRSSI: Int8
    /// The manufacturer-reserved byte.
    public var reserved: UInt8

    public init(manufacturerID: UInt16, id1: BeaconUUID, id2: UInt16, id3: UInt16, referenceRSSI: Int8, reserved: UInt8) {
        self.manufacturerID = manufacturerID
        self.id1 = id1
        self.id2 = id2
        self.id3 = id3
        self.referenceRSSI = referenceRSSI
        self.reserved = reserved
    }

    /// The manufacturer data that carries this beacon (company id first, as in the AD structure).
    public var manufacturerData: [UInt8] {
        var bytes: [UInt8] = [UInt8(manufacturerID & 0xFF), UInt8(manufacturerID >> 8), 0xBE, 0xAC]
        bytes += id1.bytes
        bytes += [UInt8(id2 >> 8), UInt8(id2 & 0xFF), UInt8(id3 >> 8), UInt8(id3 & 0xFF), UInt8(bitPattern: referenceRSSI), reserved]
        return bytes
    }
}
