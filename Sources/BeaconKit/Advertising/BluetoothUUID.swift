/// A Bluetooth service UUID as advertised: 16-bit, 32-bit or 128-bit.
///
/// Short forms print as 4 or 8 upper-case hex digits (`FEAA`); 128-bit ones as a standard UUID.
/// AD structures carry all of them little-endian.
public enum BluetoothUUID: Sendable, Hashable, CustomStringConvertible {
    case uuid16(UInt16)
    case uuid32(UInt32)
    case uuid128(BeaconUUID)

    /// Reads a little-endian UUID of `bytes.count` (2, 4 or 16) bytes; `nil` for other sizes.
    init?(littleEndian bytes: UnsafeRawBufferPointer) {
        switch bytes.count {
        case 2:
            self = .uuid16(UInt16(bytes[0]) | UInt16(bytes[1]) << 8)
        case 4:
            self = .uuid32(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        case 16:
            self = .uuid128(BeaconUUID(bytes: bytes.reversed()))
        default:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .uuid16(let value): Hex.string(UInt64(value), digits: 4)
        case .uuid32(let value): Hex.string(UInt64(value), digits: 8)
        case .uuid128(let value): value.description
        }
    }
}
