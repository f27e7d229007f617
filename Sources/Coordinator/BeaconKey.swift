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
        guard bytes.count == 36, bytes[8] == 0x2D, bytes[13] == 0x2D, bytes[18] == 0x2D, bytes[23] == 0x2D else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        var nibbles = 0
        for i in 0..<36 where i != 8 && i != 13 && i != 18 && i != 23 {
            guard let digit = JSONScanner.hexValue(bytes[i]) else { return nil }
            if nibbles < 16 { high = high << 4 | UInt64(digit) } else { low = low << 4 | UInt64(digit) }
            nibbles += 1
        }
        return (high, low)
    }

    /// Parses `count * 2` hex digits into an integer; `nil` when malformed.
    @inline(__always)
    static func parseHex(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard bytes.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard let digit = JSONScanner.hexValue(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case) into 48 bits; `nil` when malformed.
    @inline(__always)
    static func parseAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard bytes.count == 17 else { return nil }
        var value: UInt64 = 0
        for i in 0..<17 {
            if i % 3 == 2 {
                guard bytes[i] == 0x3A else { return nil }
                continue
            }
            guard let digit = JSONScanner.hexValue(bytes[i]) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        return value
    }
}
