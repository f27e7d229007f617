import Foundation

/// Writes the coordinator's outputs (`RegionsMessage`, `ClientEvent`) as contract JSON without
/// `JSONEncoder`: the same object, sorted keys, absent optionals left out, times as RFC 3339 with
/// milliseconds. A busy venue publishes an event or a set for many clients every flush, and
/// `JSONEncoder` was a large share of the service's time doing it.
///
/// Anything it writes decodes with `WireCoding.decode` to the same value, and for the values the
/// coordinator produces the bytes are `JSONEncoder`'s (the tests check both).
public struct OutputWriter {
    private var out: [UInt8] = []

    public init() {
        out.reserveCapacity(4096)
    }

    /// The JSON of `message`.
    public mutating func encode(_ message: RegionsMessage) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        out.appendJSONMember("{\"add\":", message.add, Self.appendRefs)
        out.appendJSONMember(",\"budget\":", Int64(message.budget), JSONBytes.appendInteger)
        out.appendJSONMember(",\"coordinator\":", message.coordinator, JSONBytes.appendString)
        out.appendJSONMember(",\"partition\":", message.partition, JSONBytes.appendString)
        out.appendJSONMember(",\"position\":", message.position, Self.appendPosition)
        out.appendJSONMember(",\"reason\":", message.reason, JSONBytes.appendString)
        out.appendJSONMember(",\"regions\":", message.regions, Self.appendRefs)
        out.appendJSONMember(",\"remove\":", message.remove) { $1.appendJSONArray($0, JSONBytes.appendString) }
        out.appendJSONMember(",\"time\":", message.time, Self.appendDate)
        out.appendJSONMember(",\"token\":", message.token, JSONBytes.appendUnsigned)
        out.appendJSONMember(",\"v\":", Int64(message.v), JSONBytes.appendInteger)
        out.appendJSONMember(",\"validFor\":", message.validFor, JSONBytes.appendNumber)
        out.appendJSONMember(",\"version\":", message.version, JSONBytes.appendUnsigned)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The JSON of `event`.
    public mutating func encode(_ event: ClientEvent) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        out.appendJSONMember("{\"client\":", event.client, JSONBytes.appendString)
        out.appendJSONMember(",\"confidence\":", event.confidence, JSONBytes.appendNumber)
        out.appendJSONMember(",\"evidence\":", event.evidence, JSONBytes.appendString)
        out.appendJSONMember(",\"level\":", event.level, JSONBytes.appendString)
        out.appendJSONMember(",\"position\":", event.position, Self.appendPosition)
        out.appendJSONMember(",\"region\":", event.region, JSONBytes.appendString)
        out.appendJSONMember(",\"room\":", event.room, JSONBytes.appendString)
        out.appendJSONMember(",\"time\":", event.time, Self.appendDate)
        out.appendJSONMember(",\"type\":", event.type.rawValue, JSONBytes.appendString)
        out.appendJSONMember(",\"v\":", Int64(event.v), JSONBytes.appendInteger)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func appendRefs(_ refs: [RegionRef], to out: inout [UInt8]) {
        out.appendJSONArray(refs) { ref, out in
            out.appendJSONMember("{\"id\":", ref.id, JSONBytes.appendString)
            out.appendJSONMember(",\"major\":", ref.major.map(Int64.init), JSONBytes.appendInteger)
            out.appendJSONMember(",\"minor\":", ref.minor.map(Int64.init), JSONBytes.appendInteger)
            out.appendJSONMember(",\"uuid\":", ref.uuid, JSONBytes.appendString)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func appendPosition(_ position: Position, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        if let confidence = position.confidence {
            // It sorts first but may be absent: the comma follows it rather than leads `level`.
            JSONBytes.appendASCII("\"confidence\":", to: &out)
            JSONBytes.appendNumber(confidence, to: &out)
            out.append(UInt8(ascii: ","))
        }
        out.appendJSONMember("\"level\":", position.level, JSONBytes.appendString)
        out.appendJSONMember(",\"room\":", position.room, JSONBytes.appendString)
        out.appendJSONMember(",\"x\":", position.x, JSONBytes.appendNumber)
        out.appendJSONMember(",\"y\":", position.y, JSONBytes.appendNumber)
        out.append(UInt8(ascii: "}"))
    }

    private static func appendDate(_ date: Date, to out: inout [UInt8]) {
        JSONBytes.appendTime(millisecondsSince1970: RFC3339.milliseconds(since1970: date), to: &out)
    }
}
