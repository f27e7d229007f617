/// What identifies a beacon across advertisements and addresses, packed into 21 bytes: the one
/// identity type every layer uses (the decoder, the agent's aggregation, the wire codec, the
/// topology's regions and the coordinator's client table).
///
/// - iBeacon and AltBeacon: the 16-byte UUID (AltBeacon: the first 16 bytes of its id) in
///   `high`/`low`, with major and minor.
/// - Eddystone-UID: the 10-byte namespace and 6-byte instance in `high`/`low` (namespace first).
/// - Frames without an identity (Eddystone URL and TLM): the advertiser's 48-bit address in `low`.
public struct BeaconIdentity: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Which kind of identity this is.
    public enum Kind: UInt8, Sendable, Comparable {
        /// iBeacon or AltBeacon: UUID, major, minor.
        case uuidMajorMinor = 0
        /// Eddystone-UID: namespace and instance.
        case eddystoneUID = 1
        /// Only the advertiser's 48-bit address is known.
        case address = 2

        public static func < (lhs: Kind, rhs: Kind) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    public var high: UInt64
    public var low: UInt64
    public var major: UInt16
    public var minor: UInt16
    public var kind: Kind

    /// An identity from its packed words.
    @inline(__always)
    public init(high: UInt64, low: UInt64, major: UInt16, minor: UInt16, kind: Kind) {
        self.high = high
        self.low = low
        self.major = major
        self.minor = minor
        self.kind = kind
    }

    /// An iBeacon or AltBeacon identity.
    @inline(__always)
    public init(uuid: BeaconUUID, major: UInt16, minor: UInt16) {
        self.init(high: uuid.high, low: uuid.low, major: major, minor: minor, kind: .uuidMajorMinor)
    }

    /// An iBeacon identity from its UUID text (`E2C56DB5-DFFB-48D2-B060-D0F5A71096E0`, any case).
    public init?(uuid: String, major: UInt16, minor: UInt16) {
        guard let parsed = BeaconUUID(uuid) else { return nil }
        self.init(uuid: parsed, major: major, minor: minor)
    }

    /// An Eddystone-UID identity.
    public init(namespace: EddystoneNamespace, instance: EddystoneInstance) {
        self.init(
            high: UInt64(namespace.high) << 48 | namespace.low >> 16, low: namespace.low << 48 | instance.rawValue,
            major: 0, minor: 0, kind: .eddystoneUID)
    }

    /// The identity of an advertiser known only by its address.
    public init(address: BluetoothAddress) {
        self.init(high: 0, low: address.rawValue, major: 0, minor: 0, kind: .address)
    }

    /// The UUID of an iBeacon or AltBeacon identity (for other kinds, the same 16 bytes).
    public var uuid: BeaconUUID { BeaconUUID(high: high, low: low) }

    /// The Eddystone-UID namespace (meaningful for ``Kind/eddystoneUID``).
    public var namespace: EddystoneNamespace {
        EddystoneNamespace(high: UInt16(truncatingIfNeeded: high >> 48), low: high << 16 | low >> 48)
    }

    /// The Eddystone-UID instance (meaningful for ``Kind/eddystoneUID``).
    public var instance: EddystoneInstance { EddystoneInstance(rawValue: low & 0xFFFF_FFFF_FFFF) }

    /// The Eddystone-UID namespace as 20 upper-case hex digits, as the wire and client ids write it.
    public var namespaceHex: String { Hex.string(high, digits: 16) + Hex.string(low >> 48, digits: 4) }

    /// The Eddystone-UID instance as 12 upper-case hex digits.
    public var instanceHex: String { Hex.string(low, digits: 12) }

    /// The advertiser's address (meaningful for ``Kind/address``).
    public var address: BluetoothAddress { BluetoothAddress(rawValue: low) }

    /// A legal topic identifier naming a mobile client heard with this identity:
    /// `UUID.major.minor`, `NAMESPACE.INSTANCE` (upper-case hex) or `addr-AABBCCDDEEFF`.
    public var clientIdentifier: String {
        switch kind {
        case .uuidMajorMinor:
            // Written byte by byte: a new tag is named this way on its first sighting.
            return String(unsafeUninitializedCapacity: 48) { out in
                var n = uuid.write(into: out, at: 0)
                for part in [major, minor] {
                    out[n] = UInt8(ascii: ".")
                    n = Self.writeDecimal(part, into: out, at: n + 1)
                }
                return n
            }
        case .eddystoneUID:
            return namespaceHex + "." + instanceHex
        case .address:
            return "addr-" + Hex.string(low, digits: 12)
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
    public static func == (a: BeaconIdentity, b: BeaconIdentity) -> Bool {
        a.high == b.high && a.low == b.low && a.major == b.major && a.minor == b.minor && a.kind == b.kind
    }

    public static func < (a: BeaconIdentity, b: BeaconIdentity) -> Bool {
        (a.kind, a.high, a.low, a.major, a.minor) < (b.kind, b.high, b.low, b.major, b.minor)
    }

    /// A lossless text form for storage: `kind:high:low:major:minor` (words in hex).
    public var storageText: String {
        "\(kind.rawValue):\(String(high, radix: 16)):\(String(low, radix: 16)):\(major):\(minor)"
    }

    /// Parses ``storageText``; `nil` when malformed.
    public init?(storageText: String) {
        let parts = storageText.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 5, let kindValue = UInt8(parts[0]), let kind = Kind(rawValue: kindValue),
            let high = UInt64(parts[1], radix: 16), let low = UInt64(parts[2], radix: 16),
            let major = UInt16(parts[3]), let minor = UInt16(parts[4])
        else { return nil }
        self.init(high: high, low: low, major: major, minor: minor, kind: kind)
    }

    /// Writes `value` in decimal at `position`; returns the position after it.
    @inline(__always)
    static func writeDecimal(_ value: UInt16, into out: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
        var value = Int(value)
        var divisor = 10_000
        var n = position
        while divisor > 1, value < divisor { divisor /= 10 }
        while divisor > 0 {
            out[n] = UInt8(48 + value / divisor)
            value %= divisor
            divisor /= 10
            n += 1
        }
        return n
    }
}
