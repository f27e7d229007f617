public import Foundation
public import WireProtocol

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

    private mutating func integer(_ value: Int64) {
        if value < 0 {
            out.append(UInt8(ascii: "-"))
            unsigned(value.magnitude)
        } else {
            unsigned(UInt64(value))
        }
    }

    private mutating func unsigned(_ value: UInt64) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
        var n = 0
        var v = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                buffer[23 - n] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
                n += 1
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - n)...]))
        }
    }

    /// A number as `JSONEncoder` writes it: integral values without a fraction, others in Swift's
    /// shortest round-trip form. Non-finite values (which `JSONEncoder` refuses) are written as 0.
    private mutating func number(_ value: Double) {
        guard value.isFinite else {
            out.append(UInt8(ascii: "0"))
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value))
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    private mutating func date(_ date: Date) {
        out.append(UInt8(ascii: "\""))
        out.append(contentsOf: RFC3339.string(from: date).utf8)
        out.append(UInt8(ascii: "\""))
    }

    private mutating func string(_ text: String) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20:
                raw("\\u00")
                let hex: StaticString = "0123456789abcdef"
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
