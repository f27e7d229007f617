import BeaconKit

/// The byte-level pieces of JSON that every hand-written writer shares (the agent's sightings
/// batches, the coordinator's outputs, `decode --json`, `plan --json`, the topology export),
/// written exactly as ``WireCoding``'s `JSONEncoder` writes them, so a hand-written message and an
/// encoded one are the same bytes. This is the tree's one JSON string escaper.
public enum JSONBytes {
    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        appendString(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string, quotes included.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): appendASCII("\\\"", to: &out)
            case UInt8(ascii: "\\"): appendASCII("\\\\", to: &out)
            case 0x0A: appendASCII("\\n", to: &out)
            case 0x0D: appendASCII("\\r", to: &out)
            case 0x09: appendASCII("\\t", to: &out)
            case 0x08: appendASCII("\\b", to: &out)
            case 0x0C: appendASCII("\\f", to: &out)
            case 0..<0x20:
                appendASCII("\\u00", to: &out)
                out.append(Hex.digit(byte >> 4) | 0x20)  // lower case, as JSONEncoder writes it
                out.append(Hex.digit(byte & 0xF) | 0x20)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `value` as `JSONEncoder` writes it: integral values without a fraction, others in
    /// Swift's shortest round-trip form. Non-finite values (which `JSONEncoder` refuses) become 0.
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(UInt8(ascii: "0"))
            return
        }
        if value == value.rounded(), abs(value) < 1e15 {
            appendInteger(Int64(value), to: &out)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    /// Appends `value` in decimal.
    public static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendUnsigned(value.magnitude, to: &out)
    }

    /// Appends `value` in decimal, without going through a `String`.
    public static func appendUnsigned(_ value: UInt64, to out: inout [UInt8]) {
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

    /// Appends an RFC 3339 time with milliseconds as a JSON string, quotes included.
    static func appendTime(millisecondsSince1970 millis: Int64, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        RFC3339.append(millisecondsSince1970: millis, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text`, which needs no escaping (keys, punctuation), as it is.
    @inline(__always) static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension [UInt8] {
    /// Appends one member of a JSON object: `key` as written (`{"name":` for the first member,
    /// `,"name":` for the others) and then `value` by `appendValue`; nothing when `value` is nil, as
    /// `JSONEncoder` leaves an absent optional out.
    @inline(__always) mutating func appendJSONMember<Value>(
        _ key: StaticString, _ value: Value?, _ appendValue: (Value, inout [UInt8]) -> Void
    ) {
        guard let value else { return }
        JSONBytes.appendASCII(key, to: &self)
        appendValue(value, &self)
    }

    /// Appends `elements` as a JSON array, each element by `appendElement`.
    @inline(__always) mutating func appendJSONArray<Item>(_ elements: [Item], _ appendElement: (Item, inout [UInt8]) -> Void) {
        append(UInt8(ascii: "["))
        for (index, element) in elements.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            appendElement(element, &self)
        }
        append(UInt8(ascii: "]"))
    }
}
