public import BeaconKit
import Foundation

/// One validated sighting, in a compact form: no strings, identity packed into a ``BeaconIdentity``.
///
/// The small fields follow `key` so that they fill its 3 bytes of padding and the word after it:
/// 64 bytes a sighting instead of 80 in the order the wire has them. A batch's thousand are
/// written by the decoder and read again by the engine.
public struct DecodedSighting: Sendable, Equatable {
    /// The beacon's identity (by address for Eddystone URL and TLM frames).
    public var key: BeaconIdentity
    /// The frame format it was heard in.
    public var format: BeaconFormat
    /// Strongest RSSI in the window, dBm.
    public var rssiMax: Int16
    /// Advertisements heard in the window.
    public var count: Int32
    /// Measured power at 1 m (0 m for Eddystone), dBm.
    public var txPower: Int16?
    /// The advertiser's 48-bit address.
    public var address: UInt64
    /// Filtered mean RSSI over the window, dBm.
    public var rssi: Double
    /// Estimated distance in metres.
    public var distance: Double?

    /// The same sighting as the contract's `Codable` type (canonical upper-case spelling).
    public var sighting: Sighting {
        let addressText = BluetoothAddress(rawValue: address).description
        var result = Sighting(
            format: format.name, address: addressText, rssi: rssi, rssiMax: Int(rssiMax), count: Int(count),
            txPower: txPower.map(Int.init), distance: distance)
        result.setIdentity(key, format: format)
        return result
    }
}

/// One validated sightings window of one gateway.
public struct DecodedSightingsBatch: Sendable, Equatable {
    public var seq: UInt64
    /// The gateway's spool epoch, when the batch carries one.
    public var epoch: UInt64?
    /// The window's start and end, milliseconds since 1970.
    public var startMilliseconds: Int64
    public var endMilliseconds: Int64
    public var sightings: [DecodedSighting]

    public init(
        seq: UInt64 = 0, epoch: UInt64? = nil, startMilliseconds: Int64 = 0, endMilliseconds: Int64 = 0, sightings: [DecodedSighting] = []
    ) {
        self.seq = seq
        self.epoch = epoch
        self.startMilliseconds = startMilliseconds
        self.endMilliseconds = endMilliseconds
        self.sightings = sightings
    }
}

/// Decodes `P/v1/gateways/{gw}/sightings` payloads straight from bytes, validating every field.
///
/// Foundation's `JSONDecoder` manages a few hundred thousand sightings per second; this decoder
/// reads the bytes once, allocates nothing per sighting and accepts exactly what the
/// contract allows (``WireCoding`` stays the reference; tests check that both agree). Every
/// failure is a ``WireError`` naming the topic, the field (`sightings[3].uuid`) and the reason.
public struct SightingsBatchDecoder: Sendable {
    /// The contract's sighting keys as the agent writes them, for the fast key match.
    private let keys = SightingKeyPatterns.agent
    /// The canonical-layout reader tried first on each sighting (one shared instance).
    private let canonical = CanonicalSightingReader.agent
    /// Whether every sighting goes through the general path.
    private let generalPathOnly: Bool

    public init() {
        self.generalPathOnly = false
    }

    /// A decoder that reads every sighting through the general path when `generalPathOnly` (the
    /// reference the tests compare the canonical-layout reader against).
    init(generalPathOnly: Bool) {
        self.generalPathOnly = generalPathOnly
    }

    /// About the fewest bytes a sighting takes as `SightingsBatchWriter` writes it (a canonical
    /// iBeacon sighting is 180–190): the capacity a payload's batch is given up front.
    static let typicalSightingBytes = 160

    /// Decodes `payload` received on `topic` from gateway `gateway`.
    public func decode(_ payload: UnsafeRawBufferPointer, topic: String, gateway: String? = nil) throws(WireError) -> DecodedSightingsBatch
    {
        var batch = DecodedSightingsBatch()
        try decode(payload, topic: topic, gateway: gateway, into: &batch)
        return batch
    }

    /// Decodes `payload` received on `topic` from gateway `gateway`.
    public func decode(_ payload: [UInt8], topic: String, gateway: String? = nil) throws(WireError) -> DecodedSightingsBatch {
        var batch = DecodedSightingsBatch()
        let failure: WireError? = payload.withUnsafeBytes { raw -> WireError? in
            do throws(WireError) {
                try decode(raw, topic: topic, gateway: gateway, into: &batch)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return batch
    }

    /// Decodes into `batch`, reusing its array's storage (the ingest loop's allocation-free path).
    public func decode(_ payload: UnsafeRawBufferPointer, topic: String, gateway: String?, into batch: inout DecodedSightingsBatch)
        throws(WireError)
    {
        guard payload.count <= WireCoding.maximumPayloadBytes else {
            throw .oversizedPayload(topic: topic, bytes: payload.count, limit: WireCoding.maximumPayloadBytes)
        }
        batch.sightings.removeAll(keepingCapacity: true)
        // Room for as many sightings as the payload can hold at the writer's usual size, so a fresh
        // batch is not grown (and copied) about ten times on the way to a thousand.
        batch.sightings.reserveCapacity(payload.count / Self.typicalSightingBytes)
        let bytes = payload.bindMemory(to: UInt8.self)
        var scanner = JSONScanner(bytes)
        var field = FieldPath()
        let version: Int
        do {
            version = try decodeBatch(&scanner, gateway: gateway, into: &batch, field: &field)
        } catch let failure as JSONScanner.Failure {
            let at = failure.offset >= 0 ? " (byte \(failure.offset))" : ""
            throw .invalidPayload(topic: topic, reason: "\(field): \(failure.message)\(at)")
        } catch {
            throw .invalidPayload(topic: topic, reason: "\(field): \(error)")
        }
        guard version == 1 else { throw .unsupportedVersion(topic: topic, version: version) }
    }

    private func decodeBatch(_ s: inout JSONScanner, gateway: String?, into batch: inout DecodedSightingsBatch, field: inout FieldPath)
        throws -> Int
    {
        try s.expect(0x7B, "a JSON object")
        var version: Int64?
        var seq: UInt64?
        var epoch: UInt64?
        var start: Int64?
        var end: Int64?
        var sawSightings = false
        if !s.consume(0x7D) {
            repeat {
                let key = try s.key()
                if key.equals("sightings") {
                    field = FieldPath("sightings")
                    if s.consumeNull() { throw JSONScanner.Failure(message: "is null, expected an array", offset: s.index) }
                    try s.expect(0x5B, "an array")
                    sawSightings = true
                    if !s.consume(0x5D) {
                        var i = 0
                        var recent = CanonicalSightingReader.RecentUUID()
                        repeat {
                            if generalPathOnly || !canonical.read(&s, index: i, field: &field, recent: &recent, into: &batch.sightings) {
                                let sighting = try decodeSighting(&s, index: i, field: &field)
                                batch.sightings.append(sighting)
                            }
                            i += 1
                        } while try s.next(close: 0x5D)
                    }
                } else if key.equals("seq") {
                    field = FieldPath("seq")
                    seq = try s.unsigned64()
                } else if key.equals("epoch") {
                    field = FieldPath("epoch")
                    if !s.consumeNull() { epoch = try s.unsigned64() }
                } else if key.equals("v") {
                    field = FieldPath("v")
                    version = try s.integer(in: Int64(Int32.min)...Int64(Int32.max))
                } else if key.equals("start") {
                    field = FieldPath("start")
                    start = try time(&s)
                } else if key.equals("end") {
                    field = FieldPath("end")
                    end = try time(&s)
                } else if key.equals("gateway") {
                    field = FieldPath("gateway")
                    if !s.consumeNull() {
                        let text = try s.string()
                        if let gateway, text != gateway {
                            throw JSONScanner.Failure(
                                message: "\"\(text.prefix(64))\" does not match the topic's gateway \"\(gateway)\"", offset: -1)
                        }
                    }
                } else {
                    field = FieldPath(unknown: String(key.text.prefix(64)))
                    try s.skipValue()
                }
            } while try s.next(close: 0x7D)
        }
        field = FieldPath()
        try s.end()
        func missing(_ name: StaticString) -> JSONScanner.Failure {
            field = FieldPath(name)
            return JSONScanner.Failure(message: "missing", offset: -1)
        }
        guard let version else { throw missing("v") }
        guard version == 1 else { return Int(version) }
        guard let seq else { throw missing("seq") }
        guard let start else { throw missing("start") }
        guard let end else { throw missing("end") }
        guard sawSightings else { throw missing("sightings") }
        guard end >= start else {
            field = FieldPath("end")
            throw JSONScanner.Failure(message: "the window ends before it starts", offset: -1)
        }
        batch.seq = seq
        batch.epoch = epoch
        batch.startMilliseconds = start
        batch.endMilliseconds = end
        return 1
    }

    private func time(_ s: inout JSONScanner) throws -> Int64 {
        if s.consumeNull() { throw JSONScanner.Failure(message: "is null, expected an RFC 3339 time", offset: s.index) }
        let text = try s.string()
        guard let millis = RFC3339.millisecondsSince1970(text) else {
            throw JSONScanner.Failure(message: "\"\(text.prefix(40))\" is not an RFC 3339 time", offset: -1)
        }
        return millis
    }

    private func decodeSighting(_ s: inout JSONScanner, index: Int, field: inout FieldPath) throws -> DecodedSighting {
        try s.expect(0x7B, "an object")
        var format: BeaconFormat?
        var uuid: (UInt64, UInt64)?
        var major: UInt16?
        var minor: UInt16?
        var namespace: UInt64?  // 80 bits do not fit: keep high 64 and low 16 separately
        var namespaceLow: UInt64 = 0
        var instance: UInt64?
        var address: UInt64?
        var rssi: Double?
        var rssiMax: Int64?
        var count: Int64?
        var txPower: Int64?
        var distance: Double?
        if !s.consume(0x7D) {
            repeat {
                switch try sightingKey(&s) {
                case .rssi:
                    field.set("rssi", index)
                    let value = try s.double()
                    guard value >= -128, value <= 20 else {
                        throw JSONScanner.Failure(message: "\(value) dBm is outside -128...20", offset: -1)
                    }
                    rssi = value
                case .uuid:
                    field.set("uuid", index)
                    if !s.consumeNull() {
                        let parsed = try s.string(parsedBy: BeaconUUID.init(utf8:), expected: "not a UUID (8-4-4-4-12 hex digits)")
                        uuid = (parsed.high, parsed.low)
                    }
                case .major:
                    field.set("major", index)
                    if !s.consumeNull() { major = UInt16(try s.integer(in: 0...65535)) }
                case .minor:
                    field.set("minor", index)
                    if !s.consumeNull() { minor = UInt16(try s.integer(in: 0...65535)) }
                case .address:
                    field.set("address", index)
                    address = try s.string(parsedBy: BluetoothAddress.init(utf8:), expected: "not an address (AA:BB:CC:DD:EE:FF)").rawValue
                case .format:
                    field.set("format", index)
                    format = try s.string(
                        parsedBy: SightingsBatchDecoder.format,
                        expected: "unknown format (expected ibeacon, altbeacon, eddystone-uid, eddystone-url or eddystone-tlm)")
                case .rssiMax:
                    field.set("rssiMax", index)
                    rssiMax = try s.integer(in: -128...20)
                case .count:
                    field.set("count", index)
                    count = try s.integer(in: 1...Int64(Int32.max))
                case .txPower:
                    field.set("txPower", index)
                    if !s.consumeNull() { txPower = try s.integer(in: -128...127) }
                case .distance:
                    field.set("distance", index)
                    if !s.consumeNull() {
                        let value = try s.double()
                        guard value >= 0 else { throw JSONScanner.Failure(message: "negative distance", offset: -1) }
                        distance = value
                    }
                case .namespace:
                    field.set("namespace", index)
                    if !s.consumeNull() {
                        (namespace, namespaceLow) = try s.string(
                            parsedBy: { bytes in
                                guard bytes.count == 20, let high = Hex.parse(UnsafeBufferPointer(rebasing: bytes[..<16])),
                                    let low = Hex.parse(UnsafeBufferPointer(rebasing: bytes[16...]))
                                else { return nil }
                                return (high, low)
                            }, expected: "not a 10-byte namespace (20 hex digits)")
                    }
                case .instance:
                    field.set("instance", index)
                    if !s.consumeNull() {
                        instance = try s.string(
                            parsedBy: { $0.count == 12 ? Hex.parse($0) : nil }, expected: "not a 6-byte instance (12 hex digits)")
                    }
                case .unknown(let key):
                    field = FieldPath(unknown: String(key.text.prefix(64)), index: index)
                    try s.skipValue(depth: 1)
                }
            } while try s.next(close: 0x7D)
        }
        func missing(_ name: StaticString) -> JSONScanner.Failure {
            field = FieldPath(name, index: index)
            return JSONScanner.Failure(message: "missing", offset: -1)
        }
        guard let format else { throw missing("format") }
        guard let address else { throw missing("address") }
        guard let rssi else { throw missing("rssi") }
        guard let rssiMax else { throw missing("rssiMax") }
        guard let count else { throw missing("count") }
        let key: BeaconIdentity
        switch BeaconIdentity.ofSighting(
            format: format, uuid: uuid, major: major, minor: minor, namespace: namespace.map { ($0, namespaceLow) }, instance: instance,
            address: address)
        {
        case .success(let identity): key = identity
        case .failure(let absent): throw missing(absent.name)
        }
        return DecodedSighting(
            key: key, format: format, rssiMax: Int16(rssiMax), count: Int32(count), txPower: txPower.map { Int16($0) }, address: address,
            rssi: rssi, distance: distance)
    }

    /// A sighting's key and its `:`. The agent writes every key without blanks or escapes, so the
    /// key's first letter picks the one or two it can be and a two-word compare confirms it; any
    /// other spelling (blanks, escapes, unknown keys, the end of the buffer near) goes through
    /// the scanner's general key reading, with the same result.
    @inline(__always)
    private func sightingKey(_ s: inout JSONScanner) throws -> SightingKey {
        s.skipWhitespace()
        if s.index + 16 <= s.count, s.base[s.index] == 0x22 {
            switch s.base[s.index + 1] {
            case 0x61: if s.consume(keys.address) { return .address }
            case 0x63: if s.consume(keys.count) { return .count }
            case 0x64: if s.consume(keys.distance) { return .distance }
            case 0x66: if s.consume(keys.format) { return .format }
            case 0x69: if s.consume(keys.instance) { return .instance }
            case 0x6D:
                if s.consume(keys.major) { return .major }
                if s.consume(keys.minor) { return .minor }
            case 0x6E: if s.consume(keys.namespace) { return .namespace }
            case 0x72:
                if s.consume(keys.rssiMax) { return .rssiMax }
                if s.consume(keys.rssi) { return .rssi }
            case 0x74: if s.consume(keys.txPower) { return .txPower }
            case 0x75: if s.consume(keys.uuid) { return .uuid }
            default: break
            }
        }
        let key = try s.key()
        let known: [(StaticString, SightingKey)] = [
            ("rssi", .rssi), ("uuid", .uuid), ("major", .major), ("minor", .minor), ("address", .address), ("format", .format),
            ("rssiMax", .rssiMax), ("count", .count), ("txPower", .txPower), ("distance", .distance), ("namespace", .namespace),
            ("instance", .instance),
        ]
        for (name, sightingKey) in known where key.equals(name) { return sightingKey }
        return .unknown(key)
    }

    @inline(__always)
    static func format(_ bytes: UnsafeBufferPointer<UInt8>) -> BeaconFormat? {
        switch bytes.count {
        case 7 where memcmp(bytes.baseAddress!, "ibeacon", 7) == 0: return .iBeacon
        case 9 where memcmp(bytes.baseAddress!, "altbeacon", 9) == 0: return .altBeacon
        case 13 where memcmp(bytes.baseAddress!, "eddystone-uid", 13) == 0: return .eddystoneUID
        case 13 where memcmp(bytes.baseAddress!, "eddystone-url", 13) == 0: return .eddystoneURL
        case 13 where memcmp(bytes.baseAddress!, "eddystone-tlm", 13) == 0: return .eddystoneTLM
        default: return nil
        }
    }
}

/// A field a sighting's format needs that the sighting lacks.
struct MissingSightingField: Error {
    let name: StaticString
}

extension BeaconIdentity {
    /// The identity a sighting of `format` is tracked by: UUID, major and minor for iBeacon and
    /// AltBeacon, namespace and instance for Eddystone-UID, the address otherwise; or the first
    /// field the format needs that is missing. The general path and the canonical-layout reader
    /// both build it here.
    @inline(__always)
    static func ofSighting(
        format: BeaconFormat, uuid: (UInt64, UInt64)?, major: UInt16?, minor: UInt16?, namespace: (high: UInt64, low: UInt64)?,
        instance: UInt64?, address: UInt64
    ) -> Result<BeaconIdentity, MissingSightingField> {
        switch format {
        case .iBeacon, .altBeacon:
            guard let uuid else { return .failure(MissingSightingField(name: "uuid")) }
            guard let major else { return .failure(MissingSightingField(name: "major")) }
            guard let minor else { return .failure(MissingSightingField(name: "minor")) }
            return .success(BeaconIdentity(high: uuid.0, low: uuid.1, major: major, minor: minor, kind: .uuidMajorMinor))
        case .eddystoneUID:
            guard let namespace else { return .failure(MissingSightingField(name: "namespace")) }
            guard let instance else { return .failure(MissingSightingField(name: "instance")) }
            return .success(
                BeaconIdentity(high: namespace.high, low: namespace.low << 48 | instance, major: 0, minor: 0, kind: .eddystoneUID))
        case .eddystoneURL, .eddystoneTLM, .eddystoneUnknown:
            return .success(BeaconIdentity(high: 0, low: address, major: 0, minor: 0, kind: .address))
        }
    }
}

/// A key of a sighting object.
private enum SightingKey {
    case address, count, distance, format, instance, major, minor, namespace, rssi, rssiMax, txPower, uuid
    /// A key the contract does not know (skipped with its value).
    case unknown(KeyBytes)
}

/// The sighting keys as the agent writes them (`"rssi":`), for ``JSONScanner/consume(_:)-(BytePattern)``.
private struct SightingKeyPatterns: Sendable {
    /// Built once, not per decoder (a decoder may be made per message).
    static let agent = SightingKeyPatterns()

    let address = BytePattern(#""address":"#), count = BytePattern(#""count":"#), distance = BytePattern(#""distance":"#)
    let format = BytePattern(#""format":"#), instance = BytePattern(#""instance":"#), major = BytePattern(#""major":"#)
    let minor = BytePattern(#""minor":"#), namespace = BytePattern(#""namespace":"#), rssi = BytePattern(#""rssi":"#)
    let rssiMax = BytePattern(#""rssiMax":"#), txPower = BytePattern(#""txPower":"#), uuid = BytePattern(#""uuid":"#)
}

/// Where in a payload the decoder is, for error messages: `field sightings[3].uuid`.
/// Kept as a name and an index so the hot path never formats a string.
struct FieldPath: CustomStringConvertible {
    /// A contract field (no reference counting: it is set for every key of every sighting).
    var name: StaticString
    /// A key the contract does not know, when that is where the decoder is.
    var other: String?
    var index: Int

    init(_ name: StaticString = "", index: Int = -1) {
        self.name = name
        self.other = nil
        self.index = index
    }

    init(unknown: String, index: Int = -1) {
        self.name = ""
        self.other = unknown
        self.index = index
    }

    @inline(__always) mutating func set(_ name: StaticString, _ index: Int) {
        self.name = name
        self.index = index
        if other != nil { other = nil }
    }

    var description: String {
        let text = other ?? name.description
        if text.isEmpty { return "the payload" }
        return index >= 0 ? "field sightings[\(index)].\(text)" : "field \(text)"
    }
}
