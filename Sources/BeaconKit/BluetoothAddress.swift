/// A 48-bit Bluetooth device address, as `AA:BB:CC:DD:EE:FF` (most significant byte first).
///
/// Stored in a `UInt64` so that it costs nothing to copy, compare or hash. HCI carries addresses
/// little-endian (least significant byte first); ``init(littleEndianBytes:at:)`` reads that order.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address in the low 48 bits; `0xAABBCCDDEEFF` for `AA:BB:CC:DD:EE:FF`.
    public let rawValue: UInt64

    /// An address from its 48-bit value; higher bits are dropped.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case, `:` or `-` separators); `nil` when malformed.
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var value: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            value = value << 8 | UInt64(byte)
        }
        self.init(rawValue: value)
    }

    /// Reads six bytes in HCI order (least significant first) starting at `offset`.
    /// The caller guarantees `offset + 6 <= bytes.count`.
    init(littleEndianBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
        var value: UInt64 = 0
        for i in (0..<6).reversed() {
            value = value << 8 | UInt64(bytes[offset + i])
        }
        self.rawValue = value
    }

    /// The six bytes in HCI order (least significant first), as a writer puts them on the wire.
    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64($0))) }
    }

    /// `AA:BB:CC:DD:EE:FF`, upper case.
    public var description: String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(17)
        for i in (0..<6).reversed() {
            let byte = UInt8(truncatingIfNeeded: rawValue >> (8 * UInt64(i)))
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
            if i > 0 { out.append(UInt8(ascii: ":")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
