public import WireProtocol

/// A beacon's identity packed into 22 bytes: what a gateway heard, as a dictionary key.
///
/// iBeacon and AltBeacon keep their 16-byte id in `high`/`low` with major and minor;
/// Eddystone-UID keeps its 10-byte namespace and 6-byte instance in `high`/`low`;
/// frames without an identity (Eddystone URL and TLM) are keyed by the advertiser's address.
public struct BeaconKey: Hashable, Sendable, CustomStringConvertible {
    /// Which kind of identity this is.
    public enum Kind: UInt8, Sendable {
        /// iBeacon or AltBeacon: UUID (or 16-byte id), major, minor.
        case uuidMajorMinor = 0
        /// Eddystone-UID: namespace and instance.
        case eddystoneUID = 1
        /// Only the advertiser's 48-bit address is known.
        case address = 2
    }

    public var high: UInt64
    public var low: UInt64
    public var major: UInt16
    public var minor: UInt16
    public var kind: Kind

    public init(high: UInt64, low: UInt64, major: UInt16, minor: UInt16, kind: Kind) {
        self.high = high
        self.low = low
        self.major = major
        self.minor = minor
        self.kind = kind
    }

    /// An iBeacon identity from its UUID text (`E2C56DB5-DFFB-48D2-B060-D0F5A71096E0`, any case).
    public init?(uuid: String, major: UInt16, minor: UInt16) {
        var bytes = Array(uuid.utf8)
        guard let (high, low) = bytes.withUnsafeMutableBufferPointer({ BeaconKey.parseUUID(UnsafeBufferPointer($0)) }) else { return nil }
        self.init(high: high, low: low, major: major, minor: minor, kind: .uuidMajorMinor)
    }

    /// The identity a phone advertises, as declared in its report.
    public init?(_ identity: BeaconIdentity) {
        self.init(uuid: identity.uuid, major: identity.major, minor: identity.minor)
    }

    /// The UUID in canonical form: upper-case hex with hyphens (8-4-4-4-12).
    public var uuidString: String {
        var out = [UInt8]()
        out.reserveCapacity(36)
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        for i in 0..<32 {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            let word = i < 16 ? high : low
            let shift = UInt64(60 - (i % 16) * 4)
            out.append(digits[Int((word >> shift) & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A legal topic identifier naming a mobile client heard with this identity:
    /// `UUID.major.minor`, `NAMESPACE.INSTANCE` (hex) or `addr-AABBCCDDEEFF`.
    public var clientIdentifier: String {
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        func hex(_ value: UInt64, nibbles: Int) -> String {
            var out = [UInt8]()
            for i in stride(from: nibbles - 1, through: 0, by: -1) { out.append(digits[Int((value >> UInt64(i * 4)) & 0xF)]) }
            return String(decoding: out, as: UTF8.self)
        }
        switch kind {
        case .uuidMajorMinor:
            // Built byte by byte: a new tag is named this way on its first sighting.
            return String(unsafeUninitializedCapacity: 48) { out in
                var n = 0
                for i in 0..<32 {
                    if i == 8 || i == 12 || i == 16 || i == 20 {
                        out[n] = UInt8(ascii: "-")
                        n += 1
                    }
                    let word = i < 16 ? high : low
                    let nibble = Int((word >> UInt64(60 - (i % 16) * 4)) & 0xF)
                    out[n] = nibble < 10 ? UInt8(48 + nibble) : UInt8(55 + nibble)
                    n += 1
                }
                for part in [major, minor] {
                    out[n] = UInt8(ascii: ".")
                    n += 1
                    var value = Int(part)
                    var divisor = 10_000
                    while divisor > 1, value < divisor { divisor /= 10 }
                    while divisor > 0 {
                        out[n] = UInt8(48 + value / divisor)
                        value %= divisor
                        divisor /= 10
                        n += 1
                    }
                }
                return n
            }
        case .eddystoneUID:
            // 10-byte namespace = high (8 bytes) + top 2 bytes of low; instance = low 6 bytes of low.
            return hex(high, nibbles: 16) + hex(low >> 48, nibbles: 4) + "." + hex(low & 0xFFFF_FFFF_FFFF, nibbles: 12)
        case .address:
            return "addr-" + hex(low, nibbles: 12)
        }
    }

    public var description: String { clientIdentifier }

    /// Hashes the identity as three words (equal keys have equal words), which costs less than
    /// feeding the five fields one by one; this key is looked up for every sighting.
    @inline(__always)
    public func hash(into hasher: inout Hasher) {
        hasher.combine(high)
        hasher.combine(low)
        hasher.combine(UInt64(major) << 24 | UInt64(minor) << 8 | UInt64(kind.rawValue))
    }

    @inline(__always)
    public static func == (a: BeaconKey, b: BeaconKey) -> Bool {
        a.high == b.high && a.low == b.low && a.major == b.major && a.minor == b.minor && a.kind == b.kind
    }

    /// A lossless text form for the state store: `kind:high:low:major:minor` (hex words).
    public var storageText: String {
        "\(kind.rawValue):\(String(high, radix: 16)):\(String(low, radix: 16)):\(major):\(minor)"
    }

    /// Parses ``storageText``; `nil` when malformed.
    public init?(storageText: String) {
        let parts = storageText.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 5, let kindValue = UInt8(parts[0]), let kind = Kind(rawValue: kindValue),
              let high = UInt64(parts[1], radix: 16), let low = UInt64(parts[2], radix: 16),
              let major = UInt16(parts[3]), let minor = UInt16(parts[4]) else { return nil }
        self.init(high: high, low: low, major: major, minor: minor, kind: kind)
    }

    /// Parses 36 bytes of `8-4-4-4-12` hex (either case) into two words; `nil` when malformed.
    @inline(__always)
    static func parseUUID(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard bytes.count == 36, let p = bytes.baseAddress, p[8] == 0x2D, p[13] == 0x2D, p[18] == 0x2D, p[23] == 0x2D else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0, invalid: UInt8 = 0
        accumulateHex(p, 0..<8, into: &high, invalid: &invalid)
        accumulateHex(p, 9..<13, into: &high, invalid: &invalid)
        accumulateHex(p, 14..<18, into: &high, invalid: &invalid)
        accumulateHex(p, 19..<23, into: &low, invalid: &invalid)
        accumulateHex(p, 24..<36, into: &low, invalid: &invalid)
        return invalid & 0xF0 == 0 ? (high, low) : nil
    }

    /// Parses up to 16 hex digits into an integer; `nil` when malformed.
    @inline(__always)
    static func parseHex(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard bytes.count <= 16 else { return nil }
        guard let p = bytes.baseAddress else { return 0 }
        var value: UInt64 = 0, invalid: UInt8 = 0
        accumulateHex(p, 0..<bytes.count, into: &value, invalid: &invalid)
        return invalid & 0xF0 == 0 ? value : nil
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case) into 48 bits; `nil` when malformed.
    @inline(__always)
    static func parseAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard bytes.count == 17, let p = bytes.baseAddress,
              p[2] == 0x3A, p[5] == 0x3A, p[8] == 0x3A, p[11] == 0x3A, p[14] == 0x3A else { return nil }
        var value: UInt64 = 0, invalid: UInt8 = 0
        for start in stride(from: 0, to: 17, by: 3) { accumulateHex(p, start..<start + 2, into: &value, invalid: &invalid) }
        return invalid & 0xF0 == 0 ? value : nil
    }

    /// Appends the hex digits at `range` to `value`, four bits each; a byte that is not a hex digit
    /// sets high bits in `invalid`. Without branches: identities are random hex, and a branch per
    /// digit (digit or letter?) is mispredicted half the time.
    @inline(__always)
    static func accumulateHex(_ p: UnsafePointer<UInt8>, _ range: Range<Int>, into value: inout UInt64, invalid: inout UInt8) {
        for i in range {
            let nibble = hexNibble(p[i])
            invalid |= nibble
            value = value << 4 | UInt64(nibble & 0x0F)
        }
    }

    /// A hex digit's value (either case), or 0xFF.
    @inline(__always)
    static func hexNibble(_ c: UInt8) -> UInt8 {
        let digit = c &- 0x30
        let letter = (c | 0x20) &- 0x61  // A-F and a-f (and nothing else) land on 0...5
        return (digit < 10 ? digit : 0xFF) & (letter < 6 ? letter &+ 10 : 0xFF)
    }
}
