/// A 16-byte beacon UUID (iBeacon's proximity UUID, AltBeacon's first 16 id bytes) in two
/// big-endian words: cheap to copy, hash and compare, parsed and printed without Foundation.
public struct BeaconUUID: UTF8Parsable, Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bytes 0–7, the first written highest.
    public var high: UInt64
    /// Bytes 8–15.
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads the first 16 bytes, most significant first (as iBeacon carries them).
    public init(bytes: some Collection<UInt8>) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.prefix(16).enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    /// Reads 16 bytes at `offset`, most significant first. The caller guarantees they are there.
    @inline(__always)
    init(bigEndianBytes bytes: UnsafeRawBufferPointer, at offset: Int) {
        self.init(
            high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
            low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)))
    }

    /// Parses 36 bytes of `8-4-4-4-12` hex digits (either case); `nil` otherwise.
    @inline(__always)
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36, let p = bytes.baseAddress, p[8] == 0x2D, p[13] == 0x2D, p[18] == 0x2D, p[23] == 0x2D else { return nil }
        // Eight digits at a time (`Hex.parse8`): 0..<8; 9..<13 with 14..<18; 24..<32; 19..<23 with 32..<36.
        guard let first = Hex.parse8(p, at: 0), let middle = Hex.parse8(p, four: 9, four: 14), let node = Hex.parse8(p, at: 24),
            let ends = Hex.parse8(p, four: 19, four: 32)
        else { return nil }
        self.init(
            high: UInt64(first) << 32 | UInt64(middle),
            low: UInt64(ends >> 16) << 48 | UInt64(node) << 16 | UInt64(ends & 0xFFFF))
    }

    /// The 16 bytes, most significant first.
    public var bytes: [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: ($0 < 8 ? high : low) >> (8 * UInt64(7 - $0 % 8))) }
    }

    /// Writes the canonical form (36 bytes, upper case, hyphens 8-4-4-4-12) at `position`; returns
    /// the position after it.
    @inline(__always)
    @discardableResult
    public func write(into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
        var n = Hex.write(high >> 32, digits: 8, into: buffer, at: position)
        buffer[n] = 0x2D
        n = Hex.write(high >> 16, digits: 4, into: buffer, at: n + 1)
        buffer[n] = 0x2D
        n = Hex.write(high, digits: 4, into: buffer, at: n + 1)
        buffer[n] = 0x2D
        n = Hex.write(low >> 48, digits: 4, into: buffer, at: n + 1)
        buffer[n] = 0x2D
        return Hex.write(low, digits: 12, into: buffer, at: n + 1)
    }

    /// Upper case with hyphens, as iOS and the wire contract print UUIDs.
    public var description: String {
        String(unsafeUninitializedCapacity: 36) { write(into: $0, at: 0) }
    }

    public static func < (lhs: BeaconUUID, rhs: BeaconUUID) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}
