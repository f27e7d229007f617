/// A 48-bit Bluetooth device address, as `AA:BB:CC:DD:EE:FF` (most significant byte first).
///
/// Stored in a `UInt64` so that it costs nothing to copy, compare or hash. HCI carries addresses
/// little-endian (least significant byte first); ``init(littleEndianBytes:at:)`` reads that order.
public struct BluetoothAddress: UTF8Parsable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address in the low 48 bits; `0xAABBCCDDEEFF` for `AA:BB:CC:DD:EE:FF`.
    public let rawValue: UInt64

    /// An address from its 48-bit value; higher bits are dropped.
    @inlinable
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Parses 17 bytes of `AA:BB:CC:DD:EE:FF` (either case, `:` or `-` separators); `nil` when
    /// malformed.
    ///
    /// Inlinable: the coordinator's sightings decoder reads one address per sighting, and a call
    /// across modules there costs the call and the registers saved around it.
    @inlinable @inline(__always)
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 17, let p = bytes.baseAddress else { return nil }
        for separator in stride(from: 2, to: 17, by: 3) where p[separator] != 0x3A && p[separator] != 0x2D { return nil }
        // The six digit pairs gathered into two words for `Hex.parse8` (the second padded with "0000").
        let raw = UnsafeRawPointer(p)
        func pair(_ offset: Int) -> UInt64 { UInt64(UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt16.self))) }
        guard let top = Hex.parse8(pair(0) | pair(3) << 16 | pair(6) << 32 | pair(9) << 48),
            let bottom = Hex.parse8(pair(12) | pair(15) << 16 | 0x3030_3030 << 32)
        else { return nil }
        self.init(rawValue: UInt64(top) << 16 | UInt64(bottom >> 16))
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

    /// Writes `AA:BB:CC:DD:EE:FF` (17 bytes, upper case) at `position`; returns the position after it.
    @inline(__always)
    @discardableResult
    public func write(into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
        var n = position
        for index in 0..<6 {
            if index > 0 {
                buffer[n] = UInt8(ascii: ":")
                n += 1
            }
            n = Hex.write(rawValue >> (8 * UInt64(5 - index)), digits: 2, into: buffer, at: n)
        }
        return n
    }

    /// `AA:BB:CC:DD:EE:FF`, upper case.
    public var description: String {
        String(unsafeUninitializedCapacity: 17) { write(into: $0, at: 0) }
    }

    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
