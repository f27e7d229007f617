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
