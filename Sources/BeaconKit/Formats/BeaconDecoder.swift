import Foundation

/// Recognises beacon payloads in single AD structures. Bounds are checked before every read:
/// no input can make it trap.
public enum BeaconDecoder {
    /// Apple's company id.
    public static let appleCompanyID: UInt16 = 0x004C

    /// The beacon in `structure`, `nil` when it is not a beacon, or the error when it has a
    /// beacon's prefix but not a beacon's shape.
    public static func decode(_ structure: ADStructure) -> Result<Beacon?, AdvertisingDataError> {
        let value = structure.value
        switch structure.type {
        case .manufacturerData:
            return decodeManufacturerData(value)
        case .serviceData16:
            guard value.count >= 2, UInt16(value[0]) | UInt16(value[1]) << 8 == Eddystone.serviceUUID else { return .success(nil) }
            return decodeEddystone(UnsafeRawBufferPointer(rebasing: value[2...]), dataOffset: structure.offset + 4)
        default:
            return .success(nil)
        }
    }

    /// Decodes manufacturer data (company id first): iBeacon or AltBeacon.
    public static func decodeManufacturerData(_ value: UnsafeRawBufferPointer) -> Result<Beacon?, AdvertisingDataError> {
        guard value.count >= 4 else { return .success(nil) }
        let company = UInt16(value[0]) | UInt16(value[1]) << 8
        if company == appleCompanyID, value[2] == 0x02, value[3] == 0x15 {
            guard value.count >= 25 else { return .failure(.truncatedBeacon(format: .iBeacon, length: value.count, expected: 25)) }
            return .success(
                .iBeacon(
                    IBeacon(
                        uuid: uuid(value, at: 4), major: bigEndian16(value, at: 20), minor: bigEndian16(value, at: 22),
                        measuredPower: Int8(bitPattern: value[24]))))
        }
        if value[2] == 0xBE, value[3] == 0xAC {
            guard value.count >= 26 else { return .failure(.truncatedBeacon(format: .altBeacon, length: value.count, expected: 26)) }
            return .success(
                .altBeacon(
                    AltBeacon(
                        manufacturerID: company, id1: uuid(value, at: 4), id2: bigEndian16(value, at: 20), id3: bigEndian16(value, at: 22),
                        referenceRSSI: Int8(bitPattern: value[24]), reserved: value[25])))
        }
        return .success(nil)
    }

    /// Decodes an Eddystone frame (the service data after the 0xFEAA UUID). `dataOffset` is where
    /// the frame starts in the advertising data, for error messages.
    public static func decodeEddystone(_ frame: UnsafeRawBufferPointer, dataOffset: Int = 0) -> Result<Beacon?, AdvertisingDataError> {
        guard frame.count >= 1 else { return .failure(.truncatedEddystone(length: frame.count)) }
        switch frame[0] {
        case Eddystone.uidFrameType:
            // Frame type, TX power, namespace (10), instance (6), then 2 reserved bytes that
            // many beacons omit.
            guard frame.count >= 18 else { return .failure(.truncatedBeacon(format: .eddystoneUID, length: frame.count, expected: 18)) }
            var low: UInt64 = 0
            for i in 4..<12 { low = low << 8 | UInt64(frame[i]) }
            var instance: UInt64 = 0
            for i in 12..<18 { instance = instance << 8 | UInt64(frame[i]) }
            return .success(
                .eddystoneUID(
                    EddystoneUID(
                        txPower: Int8(bitPattern: frame[1]),
                        namespace: EddystoneNamespace(high: bigEndian16(frame, at: 2), low: low),
                        instance: EddystoneInstance(rawValue: instance))))
        case Eddystone.urlFrameType:
            guard frame.count >= 3 else { return .failure(.truncatedBeacon(format: .eddystoneURL, length: frame.count, expected: 3)) }
            return decodeURL(frame, dataOffset: dataOffset).map { .eddystoneURL($0) }
        case Eddystone.tlmFrameType:
            guard frame.count >= 2 else { return .failure(.truncatedEddystone(length: frame.count)) }
            // Version 1 is encrypted TLM: reported as unknown, its fields are not readable.
            guard frame[1] == 0x00 else { return .success(.eddystoneUnknown(frameType: frame[0])) }
            guard frame.count >= 14 else { return .failure(.truncatedBeacon(format: .eddystoneTLM, length: frame.count, expected: 14)) }
            let battery = bigEndian16(frame, at: 2)
            return .success(
                .eddystoneTLM(
                    EddystoneTLM(
                        batteryMillivolts: battery == 0 ? nil : battery,
                        rawTemperature: Int16(bitPattern: bigEndian16(frame, at: 4)),
                        advertisingCount: bigEndian32(frame, at: 6),
                        uptimeTenths: bigEndian32(frame, at: 10))))
        default:
            return .success(.eddystoneUnknown(frameType: frame[0]))
        }
    }

    /// Expands an Eddystone-URL frame: scheme prefix byte, then printable ASCII and expansion codes.
    static func decodeURL(_ frame: UnsafeRawBufferPointer, dataOffset: Int) -> Result<EddystoneURL, AdvertisingDataError> {
        let scheme = frame[2]
        guard Int(scheme) < Eddystone.urlSchemes.count else {
            return .failure(.invalidEddystoneURL(field: "scheme", byte: scheme, offset: dataOffset + 2))
        }
        var url = Eddystone.urlSchemes[Int(scheme)]
        var index = 3
        while index < frame.count {
            let byte = frame[index]
            if Int(byte) < Eddystone.urlExpansions.count {
                url += Eddystone.urlExpansions[Int(byte)]
            } else if byte > 0x20, byte < 0x7F {
                url.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                return .failure(.invalidEddystoneURL(field: "URL", byte: byte, offset: dataOffset + index))
            }
            index += 1
        }
        return .success(EddystoneURL(txPower: Int8(bitPattern: frame[1]), url: url))
    }

    /// 16 bytes at `offset` as a UUID, in the order written. The caller checks bounds.
    @inline(__always)
    static func uuid(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> BeaconUUID {
        BeaconUUID(bigEndianBytes: bytes, at: offset)
    }

    @inline(__always)
    static func bigEndian16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    @inline(__always)
    static func bigEndian32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }
}
