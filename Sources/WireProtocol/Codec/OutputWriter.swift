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
        raw("{\"add\":")
        refs(message.add)
        raw(",\"budget\":")
        integer(Int64(message.budget))
        if let position = message.position {
            raw(",\"position\":")
            write(position)
        }
        raw(",\"reason\":")
        string(message.reason)
        raw(",\"regions\":")
        refs(message.regions)
        raw(",\"remove\":[")
        for (i, id) in message.remove.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            string(id)
        }
        out.append(UInt8(ascii: "]"))
        if let time = message.time {
            raw(",\"time\":")
            date(time)
        }
        raw(",\"v\":")
        integer(Int64(message.v))
        if let validFor = message.validFor {
            raw(",\"validFor\":")
            number(validFor)
        }
        raw(",\"version\":")
        unsigned(message.version)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The JSON of `event`.
    public mutating func encode(_ event: ClientEvent) -> [UInt8] {
        out.removeAll(keepingCapacity: true)
        raw("{\"client\":")
        string(event.client)
        if let evidence = event.evidence {
            raw(",\"evidence\":")
            string(evidence)
        }
        if let position = event.position {
            raw(",\"position\":")
            write(position)
        }
        if let region = event.region {
            raw(",\"region\":")
            string(region)
        }
        raw(",\"time\":")
        date(event.time)
        raw(",\"type\":")
        string(event.type.rawValue)
        raw(",\"v\":")
        integer(Int64(event.v))
        out.append(UInt8(ascii: "}"))
        return out
    }

    private mutating func refs(_ list: [RegionRef]) {
        out.append(UInt8(ascii: "["))
        for (i, ref) in list.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            raw("{\"id\":")
            string(ref.id)
            if let major = ref.major {
                raw(",\"major\":")
                integer(Int64(major))
            }
            if let minor = ref.minor {
                raw(",\"minor\":")
                integer(Int64(minor))
            }
            raw(",\"uuid\":")
            string(ref.uuid)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    private mutating func write(_ position: Position) {
        out.append(UInt8(ascii: "{"))
        if let confidence = position.confidence {
            raw("\"confidence\":")
            number(confidence)
            out.append(UInt8(ascii: ","))
        }
        raw("\"level\":")
        string(position.level)
        raw(",\"x\":")
        number(position.x)
        raw(",\"y\":")
        number(position.y)
        out.append(UInt8(ascii: "}"))
    }

    @inline(__always) private mutating func raw(_ text: StaticString) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func integer(_ value: Int64) { JSONBytes.appendInteger(value, to: &out) }

    private mutating func unsigned(_ value: UInt64) { JSONBytes.appendUnsigned(value, to: &out) }

    private mutating func number(_ value: Double) { JSONBytes.appendNumber(value, to: &out) }

    private mutating func date(_ date: Date) {
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: RFC3339.string(from: date).utf8)
        out.append(UInt8(ascii: "\""))
    }

    private mutating func string(_ text: String) { JSONBytes.appendString(text, to: &out) }
}
