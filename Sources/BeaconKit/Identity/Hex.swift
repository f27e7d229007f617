/// Hexadecimal digits, read and written without Foundation and without a branch per digit.
///
/// Every identity, address and id in BeaconFleet is printed and parsed through these functions:
/// the UUIDs, addresses and Eddystone ids of ``BeaconIdentity``, ``BeaconUUID`` and
/// ``BluetoothAddress``, and the sightings the agent writes and the coordinator reads.
public enum Hex {
    /// The upper-case digit for the low four bits of `nibble`.
    @inline(__always)
    public static func digit(_ nibble: UInt8) -> UInt8 {
        let n = nibble & 0x0F
        return n < 10 ? 0x30 &+ n : 0x37 &+ n
    }

    /// A hex digit's value (either case), or `0xFF` for any other byte.
    ///
    /// Branch-free: identities are random hex, so "digit or letter?" would be mispredicted half the
    /// time. OR the results of a run together: a high bit set means one byte was not a digit.
    @inline(__always)
    public static func value(_ c: UInt8) -> UInt8 {
        let digit = c &- 0x30
        let letter = (c | 0x20) &- 0x61  // A-F and a-f (and nothing else) land on 0...5
        return (digit < 10 ? digit : 0xFF) & (letter < 6 ? letter &+ 10 : 0xFF)
    }

    /// Appends the hex digits of `p[range]` to `value`, four bits each; a byte that is not a hex
    /// digit sets high bits in `invalid`.
    @inline(__always)
    public static func accumulate(_ p: UnsafePointer<UInt8>, _ range: Range<Int>, into value: inout UInt64, invalid: inout UInt8) {
        for i in range {
            let nibble = Self.value(p[i])
            invalid |= nibble
            value = value << 4 | UInt64(nibble & 0x0F)
        }
    }

    /// Eight hex digits (either case) at once, from a little-endian word holding the first digit in
    /// its lowest byte; `nil` when any of the eight bytes is not a hex digit.
    ///
    /// The same answer as ``accumulate(_:_:into:invalid:)`` over those eight bytes, in about forty
    /// word operations instead of ten per digit: each byte is range-checked against `0`–`9` and,
    /// with bit 5 set, `a`–`f` (bytes of 0x80 and above are rejected first, so no lane carries into
    /// the next), its nibble is its low four bits plus 9 for a letter, and the nibbles are packed.
    @inlinable @inline(__always)
    public static func parse8(_ word: UInt64) -> UInt32? {
        let high: UInt64 = 0x8080_8080_8080_8080
        let w = word & 0x7F7F_7F7F_7F7F_7F7F
        let atLeastZero = w &+ 0x5050_5050_5050_5050  // + (0x80 - 0x30): high bit when >= "0"
        let aboveNine = w &+ 0x4646_4646_4646_4646  // + (0x7F - 0x39): high bit when > "9"
        let digit = atLeastZero & ~aboveNine
        let lower = w | 0x2020_2020_2020_2020
        let atLeastA = lower &+ 0x1F1F_1F1F_1F1F_1F1F  // + (0x80 - 0x61)
        let aboveF = lower &+ 0x1919_1919_1919_1919  // + (0x7F - 0x66)
        let letter = atLeastA & ~aboveF & high
        guard word & high == 0, (digit | letter) & high == high else { return nil }
        let nibbles = (w & 0x0F0F_0F0F_0F0F_0F0F) &+ (letter >> 7) &* 9
        // Pairs into bytes (first digit high), then the four bytes together, first one highest.
        var x = (nibbles & 0x000F_000F_000F_000F) << 4 | (nibbles & 0x0F00_0F00_0F00_0F00) >> 8
        x = (x | x >> 8) & 0x0000_FFFF_0000_FFFF
        x = (x | x >> 16) & 0xFFFF_FFFF
        return UInt32(truncatingIfNeeded: x).byteSwapped
    }

    /// ``parse8(_:)`` of the eight bytes at `p + offset`.
    @inline(__always)
    public static func parse8(_ p: UnsafePointer<UInt8>, at offset: Int) -> UInt32? {
        parse8(UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
    }

    /// ``parse8(_:)`` of two runs of four digits, at `p + first` and `p + second`: `first`'s value in
    /// the high 16 bits.
    @inline(__always)
    public static func parse8(_ p: UnsafePointer<UInt8>, four first: Int, four second: Int) -> UInt32? {
        let raw = UnsafeRawPointer(p)
        let a = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: first, as: UInt32.self)))
        let b = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: second, as: UInt32.self)))
        return parse8(a | b << 32)
    }

    /// Parses up to 16 hex digits (either case) into an integer; `nil` when empty, longer or malformed.
    public static func parse(_ text: some StringProtocol) -> UInt64? {
        var text = String(text)
        return text.withUTF8 { parse($0) }
    }

    /// Parses up to 16 hex digits (either case); `nil` when empty, longer or malformed.
    @inline(__always)
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 16, let p = bytes.baseAddress else { return nil }
        var value: UInt64 = 0
        var invalid: UInt8 = 0
        accumulate(p, 0..<bytes.count, into: &value, invalid: &invalid)
        return invalid & 0xF0 == 0 ? value : nil
    }

    /// Writes the low `digits` hex digits of `value` (upper case) at `position`; returns the
    /// position after them.
    @inline(__always)
    @discardableResult
    public static func write(_ value: UInt64, digits: Int, into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
        for index in 0..<digits {
            buffer[position + index] = digit(UInt8(truncatingIfNeeded: value >> (4 * UInt64(digits - 1 - index))))
        }
        return position + digits
    }

    /// The low `digits` hex digits of `value`, zero-padded, upper case unless `lowercase`.
    public static func string(_ value: UInt64, digits: Int, lowercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: digits) { buffer in
            let end = write(value, digits: digits, into: buffer, at: 0)
            if lowercase { toLowercase(buffer, count: end) }
            return end
        }
    }

    /// `bytes` as two hex digits each, upper case unless `lowercase`.
    public static func string(bytes: some Collection<UInt8>, lowercase: Bool = false) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var n = 0
            for byte in bytes { n = write(UInt64(byte), digits: 2, into: buffer, at: n) }
            if lowercase { toLowercase(buffer, count: n) }
            return n
        }
    }

    /// Lower-cases the first `count` digits of `buffer` in place (`A`…`F` become `a`…`f`).
    private static func toLowercase(_ buffer: UnsafeMutableBufferPointer<UInt8>, count: Int) {
        for i in 0..<count where buffer[i] >= 0x41 { buffer[i] |= 0x20 }
    }
}
