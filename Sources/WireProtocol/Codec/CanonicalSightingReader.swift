import BeaconKit

/// Reads one sighting written in the agent's canonical layout, or declines so the general path
/// reads it instead.
///
/// ``SightingsBatchWriter`` writes every sighting the same way: the keys in one sorted order
/// (`{"address":"…","count":N,"distance":X,"format":"…",` … `"uuid":"…"}`), absent optionals left
/// out, no blanks, no escapes, no nulls. This reader matches each expected `,"key":` at the place it
/// must be with two masked word compares and parses each value with a routine for that field. It
/// accepts a sighting only when every byte is where the layout puts it and every value is one the
/// general path would accept, with the same result; on anything else (blanks, another order,
/// escapes, unknown keys, nulls, a missing field, a value out of range or malformed, a number with
/// an exponent or more than 15 digits, the end of the buffer within ``reach``) it returns `nil` and
/// consumes nothing, and the general path reads the sighting from its `{`, so errors keep their
/// text and field path.
///
/// Reads are unchecked only behind one explicit length check: ``read(_:index:field:)`` runs only
/// when ``reach`` bytes remain from the sighting's `{`, and no step can move further than its
/// bound (patterns are at most 16 bytes, hex fields have fixed lengths, digit loops are capped), so
/// the furthest byte it ever loads is below 320 from the `{`.
///
/// A class, though immutable: its patterns take 688 bytes, and a struct that size is copied onto
/// the stack for every call that is not inlined, once per sighting (3 % of the coordinator's core
/// in the pinned end-to-end benchmark). A reference is passed as it is.
final class CanonicalSightingReader: Sendable {
    /// The bytes that must remain from a sighting's `{` for the reader to look at it.
    ///
    /// The longest canonical sighting the reader accepts moves the cursor 297 bytes: `{"address":"`
    /// + 17 + `"` (30), `,"count":` + 11 (20), `,"distance":` + 17 (29), `,"format":"` + 14 (25),
    /// `,"instance":"` + 13 (26), `,"major":` + 6 and `,"minor":` + 6 (30), `,"namespace":"` + 21 (35),
    /// `,"rssi":` + 17 (25), `,"rssiMax":` + 4 (15), `,"txPower":` + 4 (15), `,"uuid":"` + 37 (46),
    /// `}`; a number looks one byte past itself and a pattern loads 16 bytes, so every load stays
    /// below 320.
    static let reach = 384

    /// One shared copy: the patterns are built once, not per decoder.
    static let agent = CanonicalSightingReader()

    private let address = BytePattern(#"{"address":""#)
    private let count = BytePattern(#","count":"#)
    private let distance = BytePattern(#","distance":"#)
    private let format = BytePattern(#","format":""#)
    private let instance = BytePattern(#","instance":""#)
    private let major = BytePattern(#","major":"#)
    private let minor = BytePattern(#","minor":"#)
    private let namespace = BytePattern(#","namespace":""#)
    private let rssi = BytePattern(#","rssi":"#)
    private let rssiMax = BytePattern(#","rssiMax":"#)
    private let txPower = BytePattern(#","txPower":"#)
    private let uuid = BytePattern(#","uuid":""#)
    private let iBeacon = BytePattern(#"ibeacon""#)
    private let altBeacon = BytePattern(#"altbeacon""#)
    private let eddystoneUID = BytePattern(#"eddystone-uid""#)
    private let eddystoneURL = BytePattern(#"eddystone-url""#)
    private let eddystoneTLM = BytePattern(#"eddystone-tlm""#)
    /// 10^0…10^15, exact: ``JSONScanner/powersOfTen``'s values (a load, where a `switch` became a
    /// mispredicted jump per number).
    private let powersOfTen = Array(JSONScanner.powersOfTen[0...15])

    private init() {}

    /// The UUID the reader parsed last in a batch, by its 36 bytes of text: a batch's sightings
    /// mostly share a few UUIDs (a venue's tags, one app's phones), and comparing the text is
    /// cheaper than parsing it again. Only text that parsed is kept, so a match has its value.
    struct RecentUUID {
        var text: (UInt64, UInt64, UInt64, UInt64, UInt32) = (0, 0, 0, 0, 0)
        var value: BeaconUUID?

        init() {}
    }

    /// Appends the sighting at the scanner's cursor to `sightings` when it is in the canonical layout
    /// and valid, the cursor moved past its `}` and `field` set as the general path leaves it;
    /// `false` (nothing changed) otherwise.
    @inline(__always)
    func read(
        _ s: inout JSONScanner, index: Int, field: inout FieldPath, recent: inout RecentUUID, into sightings: inout [DecodedSighting]
    ) -> Bool {
        guard let sighting = read(&s, index: index, field: &field, recent: &recent) else { return false }
        sightings.append(sighting)
        return true
    }

    /// The sighting at the scanner's cursor when it is in the canonical layout and valid, the cursor
    /// moved past its `}` and `field` set as the general path leaves it; `nil` (nothing changed)
    /// otherwise. `recent` is the batch's last UUID (see ``RecentUUID``).
    @inline(__always)
    func read(_ s: inout JSONScanner, index: Int, field: inout FieldPath, recent: inout RecentUUID) -> DecodedSighting? {
        guard s.count - s.index >= Self.reach else { return nil }
        let p = s.base + s.index
        var at = 0
        // {"address":"AA:BB:CC:DD:EE:FF"
        guard address.consume(p, &at) else { return nil }
        guard p[at + 17] == 0x22, let parsedAddress = BluetoothAddress(utf8: UnsafeBufferPointer(start: p + at, count: 17)) else {
            return nil
        }
        at += 18
        // ,"count":N (1...Int32.max)
        guard count.consume(p, &at) else { return nil }
        guard let countValue = Self.integer(p, &at, maxDigits: 10), countValue >= 1, countValue <= Int64(Int32.max) else { return nil }
        // ,"distance":X (optional, not negative)
        var distanceValue: Double?
        if distance.consume(p, &at) {
            guard let value = double(p, &at), value >= 0 else { return nil }
            distanceValue = value
        }
        // ,"format":"…"
        guard format.consume(p, &at) else { return nil }
        let formatValue: BeaconFormat
        if iBeacon.consume(p, &at) {
            formatValue = .iBeacon
        } else if altBeacon.consume(p, &at) {
            formatValue = .altBeacon
        } else if eddystoneUID.consume(p, &at) {
            formatValue = .eddystoneUID
        } else if eddystoneURL.consume(p, &at) {
            formatValue = .eddystoneURL
        } else if eddystoneTLM.consume(p, &at) {
            formatValue = .eddystoneTLM
        } else {
            return nil
        }
        // ,"instance":"…" (optional, 12 hex digits)
        var instanceValue: UInt64?
        if instance.consume(p, &at) {
            guard p[at + 12] == 0x22, let high = Hex.parse8(p, at: at),
                let low = Hex.parse(UnsafeBufferPointer(start: p + at + 8, count: 4))
            else { return nil }
            instanceValue = UInt64(high) << 16 | low
            at += 13
        }
        // ,"major":N and ,"minor":N (optional, 0...65535)
        var majorValue: UInt16?
        if major.consume(p, &at) {
            guard let value = Self.integer(p, &at, maxDigits: 5), value >= 0, value <= 65535 else { return nil }
            majorValue = UInt16(value)
        }
        var minorValue: UInt16?
        if minor.consume(p, &at) {
            guard let value = Self.integer(p, &at, maxDigits: 5), value >= 0, value <= 65535 else { return nil }
            minorValue = UInt16(value)
        }
        // ,"namespace":"…" (optional, 20 hex digits: the high 64 bits and the low 16)
        var namespaceValue: (high: UInt64, low: UInt64)?
        if namespace.consume(p, &at) {
            guard p[at + 20] == 0x22, let first = Hex.parse8(p, at: at), let second = Hex.parse8(p, at: at + 8),
                let low = Hex.parse(UnsafeBufferPointer(start: p + at + 16, count: 4))
            else { return nil }
            namespaceValue = (UInt64(first) << 32 | UInt64(second), low)
            at += 21
        }
        // ,"rssi":X (-128...20)
        guard rssi.consume(p, &at) else { return nil }
        guard let rssiValue = double(p, &at), rssiValue >= -128, rssiValue <= 20 else { return nil }
        // ,"rssiMax":N (-128...20)
        guard rssiMax.consume(p, &at) else { return nil }
        guard let rssiMaxValue = Self.integer(p, &at, maxDigits: 3), rssiMaxValue >= -128, rssiMaxValue <= 20 else { return nil }
        var last: StaticString = "rssiMax"
        // ,"txPower":N (optional, -128...127)
        var txPowerValue: Int16?
        if txPower.consume(p, &at) {
            guard let value = Self.integer(p, &at, maxDigits: 3), value >= -128, value <= 127 else { return nil }
            txPowerValue = Int16(value)
            last = "txPower"
        }
        // ,"uuid":"8-4-4-4-12" (optional)
        var uuidValue: BeaconUUID?
        if uuid.consume(p, &at) {
            guard p[at + 36] == 0x22 else { return nil }
            let raw = UnsafeRawPointer(p + at)
            let text = (
                raw.loadUnaligned(as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 32, as: UInt32.self)
            )
            if let value = recent.value, text == recent.text {
                uuidValue = value
            } else {
                guard let value = BeaconUUID(utf8: UnsafeBufferPointer(start: p + at, count: 36)) else { return nil }
                uuidValue = value
                recent.text = text
                recent.value = value
            }
            at += 37
            last = "uuid"
        }
        guard p[at] == 0x7D else { return nil }
        at += 1
        // The identity as the general path builds it; a field the format needs is missing: decline.
        guard
            case .success(let key) = BeaconIdentity.ofSighting(
                format: formatValue, uuid: uuidValue.map { ($0.high, $0.low) }, major: majorValue, minor: minorValue,
                namespace: namespaceValue, instance: instanceValue, address: parsedAddress.rawValue)
        else { return nil }
        s.index += at
        field.set(last, index)
        return DecodedSighting(
            key: key, format: formatValue, rssiMax: Int16(rssiMaxValue), count: Int32(countValue), txPower: txPowerValue,
            address: parsedAddress.rawValue, rssi: rssiValue, distance: distanceValue)
    }

    /// An integer of at most `maxDigits` digits (and a sign) at `p + at`, as
    /// ``JSONScanner/integer(in:)`` reads it; `nil` for anything it would read otherwise or reject
    /// (a leading zero, a fraction or exponent, more digits). Reads at most `maxDigits + 2` bytes.
    @inline(__always)
    static func integer(_ p: UnsafePointer<UInt8>, _ at: inout Int, maxDigits: Int) -> Int64? {
        var i = at
        guard let (negative, value, _) = signedDigits(p, &i, maxDigits: maxDigits) else { return nil }
        guard p[i] != 0x2E, p[i] | 0x20 != 0x65 else { return nil }  // 3.0 and 1e2 go the general way
        at = i
        return negative ? -value : value
    }

    /// A number of at most 15 digits without an exponent at `p + at`, as ``JSONScanner/double()``
    /// reads it (the same exact fast path: the digits as an integer divided by a power of ten, both
    /// exact in a `Double`, so one correctly rounded division); `nil` for anything longer, with an
    /// exponent, or malformed. Reads at most 18 bytes.
    @inline(__always)
    func double(_ p: UnsafePointer<UInt8>, _ at: inout Int) -> Double? {
        var i = at
        // Below 10^15: a signed mantissa, so one instruction converts it.
        guard let (negative, integerPart, integerDigits) = Self.signedDigits(p, &i, maxDigits: 15) else { return nil }
        var (mantissa, digits) = (integerPart, integerDigits)
        var fractionDigits = 0
        if p[i] == 0x2E {
            i += 1
            while case let digit = p[i] &- 0x30, digit < 10 {
                guard digits < 15 else { return nil }
                mantissa = mantissa &* 10 &+ Int64(digit)
                digits += 1
                fractionDigits += 1
                i += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        guard p[i] | 0x20 != 0x65 else { return nil }  // an exponent: the general path
        at = i
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// An optional minus sign and 1...`maxDigits` digits without a leading zero at `p + i`, `i`
    /// moved past them; `nil` when there is no digit, a leading zero or more digits.
    @inline(__always)
    private static func signedDigits(_ p: UnsafePointer<UInt8>, _ i: inout Int, maxDigits: Int) -> (Bool, Int64, Int)? {
        let negative = p[i] == 0x2D
        if negative { i += 1 }
        let first = p[i] &- 0x30
        guard first < 10 else { return nil }
        i += 1
        var value = Int64(first)
        var digits = 1
        if first == 0 {
            guard p[i] &- 0x30 >= 10 else { return nil }  // a leading zero
        } else {
            while case let digit = p[i] &- 0x30, digit < 10 {
                guard digits < maxDigits else { return nil }
                value = value &* 10 &+ Int64(digit)
                digits += 1
                i += 1
            }
        }
        return (negative, value, digits)
    }
}
