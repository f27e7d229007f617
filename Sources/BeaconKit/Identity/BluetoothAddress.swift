/// A 48-bit Bluetooth device address, as `AA:BB:CC:DD:EE:FF` (most significant byte first).
///
/// Stored in a `UInt64` so that it costs nothing to copy, compare or hash. HCI carries addresses
/// little-endian (least significant byte first); ``init(littleEndianBytes:at:)`` reads that order.
public struct BluetoothAddress: UTF8Parsable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address in the low 48 bits; `0xAABBCCDDEEFF` for `AA:BB:CC:DD:EE:FF`.
    public let rawValue: UInt64

    /// An address from its 48-bit value; higher bits are dropped.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue & 0xFFFF_FFFF_FFFF
    }

    /// Parses 17 bytes of `AA:BB:CC:DD:EE:FF` (either case, `:` or `-` separators); `nil` when
    /// malformed.
    @inline(__always)
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 17, let p = bytes.baseAddress else { return nil }
        var value: UInt64 = 0
        var invalid: UInt8 = 0
        for start in stride(from: 0, to: 17, by: 3) {
            if start > 0, p[start - 1] != 0x3A, p[start - 1] != 0x2D { return nil }
            Hex.accumulate(p, start..<start + 2, into: &value, invalid: &invalid)
        }
        guard invalid & 0xF0 == 0 else { return nil }
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
