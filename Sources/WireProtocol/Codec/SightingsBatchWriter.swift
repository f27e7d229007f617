/// Writes a `SightingsBatch` as contract JSON without `JSONEncoder`: the same object, sorted keys,
/// absent optionals left out, times as RFC 3339 with milliseconds; about twenty times faster, which
/// matters because every window of a busy gateway is encoded once.
///
/// Anything it writes decodes with `WireCoding.decode(SightingsBatch.self, …)` to the same value
/// (the tests check this against `JSONEncoder`'s output).
public struct SightingsBatchWriter {
    private var out: [UInt8] = []

    public init() {
        out.reserveCapacity(64 * 1024)
    }

    /// The JSON of a batch for `gateway` with `seq` (and the spool's `epoch`, when given), covering
    /// `startMicros…endMicros` (µs since 1970).
    public mutating func encode(
        gateway: String, seq: UInt64, epoch: UInt64? = nil, startMicros: Int64, endMicros: Int64, sightings: [Sighting]
    ) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        out.appendJSONMember("{\"end\":", endMicros, Self.appendTime)
        out.appendJSONMember(",\"epoch\":", epoch, JSONBytes.appendUnsigned)
        out.appendJSONMember(",\"gateway\":", gateway, JSONBytes.appendString)
        out.appendJSONMember(",\"seq\":", seq, JSONBytes.appendUnsigned)
        out.appendJSONMember(",\"sightings\":", sightings) { $1.appendJSONArray($0, Self.appendSighting) }
        out.appendJSONMember(",\"start\":", startMicros, Self.appendTime)
        JSONBytes.appendASCII(",\"v\":1}", to: &out)
        return out
    }

    private static func appendSighting(_ s: Sighting, to out: inout [UInt8]) {
        out.appendJSONMember("{\"address\":", s.address, JSONBytes.appendString)
        out.appendJSONMember(",\"count\":", Int64(s.count), JSONBytes.appendInteger)
        out.appendJSONMember(",\"distance\":", s.distance.flatMap { $0.isFinite ? $0 : nil }, JSONBytes.appendNumber)
        out.appendJSONMember(",\"format\":", s.format, JSONBytes.appendString)
        out.appendJSONMember(",\"instance\":", s.instance, JSONBytes.appendString)
        out.appendJSONMember(",\"major\":", s.major.map(Int64.init), JSONBytes.appendInteger)
        out.appendJSONMember(",\"minor\":", s.minor.map(Int64.init), JSONBytes.appendInteger)
        out.appendJSONMember(",\"namespace\":", s.namespace, JSONBytes.appendString)
        out.appendJSONMember(",\"rssi\":", s.rssi.isFinite ? s.rssi : -127, JSONBytes.appendNumber)
        out.appendJSONMember(",\"rssiMax\":", Int64(s.rssiMax), JSONBytes.appendInteger)
        out.appendJSONMember(",\"txPower\":", s.txPower.map(Int64.init), JSONBytes.appendInteger)
        out.appendJSONMember(",\"uuid\":", s.uuid, JSONBytes.appendString)
        out.append(UInt8(ascii: "}"))
    }

    /// A time given in microseconds since 1970, rounded down to the millisecond.
    private static func appendTime(_ micros: Int64, to out: inout [UInt8]) {
        let (quotient, remainder) = micros.quotientAndRemainder(dividingBy: 1000)
        JSONBytes.appendTime(millisecondsSince1970: remainder < 0 ? quotient - 1 : quotient, to: &out)
    }
}
