/// Writes the fields of a packet's variable header and payload.
struct PacketWriter {
    let packet: String
    var bytes: [UInt8] = []

    init(packet: String) {
        self.packet = packet
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func uint16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    /// A length-prefixed UTF-8 string (no U+0000, at most 65,535 bytes).
    mutating func string(_ value: String, _ field: String) throws(MQTTPacketError) {
        guard !value.unicodeScalars.contains("\u{0}") else { throw .invalidString(packet: packet, field: field) }
        try binary(Array(value.utf8), field)
    }

    /// Length-prefixed bytes (at most 65,535).
    mutating func binary(_ value: [UInt8], _ field: String) throws(MQTTPacketError) {
        guard value.count <= Int(UInt16.max) else { throw .fieldTooLong(packet: packet, field: field, length: value.count) }
        uint16(UInt16(value.count))
        bytes += value
    }

    /// Bytes as they are (a `PUBLISH` payload).
    mutating func raw(_ value: [UInt8]) {
        bytes += value
    }
}

/// Reads the fields of a packet's variable header and payload, never past its end.
struct PacketReader {
    let packet: String
    private let bytes: ArraySlice<UInt8>
    private var index: Int

    init(packet: String, bytes: ArraySlice<UInt8>) {
        self.packet = packet
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - index }
    var isAtEnd: Bool { index == bytes.endIndex }

    mutating func byte(_ field: String) throws(MQTTPacketError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(packet: packet, field: field) }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func uint16(_ field: String) throws(MQTTPacketError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(packet: packet, field: field) }
        defer { index += 2 }
        return UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
    }

    /// A non-zero packet identifier.
    mutating func packetIdentifier() throws(MQTTPacketError) -> UInt16 {
        let identifier = try uint16("packet identifier")
        guard identifier != 0 else { throw .invalidPacketIdentifier(packet: packet) }
        return identifier
    }

    /// Length-prefixed bytes.
    mutating func binary(_ field: String) throws(MQTTPacketError) -> [UInt8] {
        let length = Int(try uint16(field))
        guard remaining >= length else { throw .truncated(packet: packet, field: field) }
        defer { index += length }
        return Array(bytes[index..<index + length])
    }

    /// A length-prefixed UTF-8 string without U+0000.
    mutating func string(_ field: String) throws(MQTTPacketError) -> String {
        let raw = try binary(field)
        guard let text = UTF8Text.decode(raw) else { throw .invalidString(packet: packet, field: field) }
        return text
    }

    /// Everything left (a `PUBLISH` payload, a `SUBACK`'s return codes).
    mutating func rest() -> [UInt8] {
        defer { index = bytes.endIndex }
        return Array(bytes[index...])
    }

    /// Throws if bytes are left.
    func expectEnd() throws(MQTTPacketError) {
        guard isAtEnd else { throw .trailingBytes(packet: packet, count: remaining) }
    }
}

/// UTF-8 as MQTT wants it: well-formed, without U+0000.
enum UTF8Text {
    /// The string `bytes` encode, or `nil` when they are not well-formed UTF-8 or hold U+0000.
    static func decode(_ bytes: [UInt8]) -> String? {
        // Decoding replaces ill-formed sequences with U+FFFD (three bytes), so a faithful round
        // trip is what proves the bytes well-formed; `String(validating:)` is not on iOS 16.
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.elementsEqual(bytes), !bytes.contains(0) else { return nil }
        return text
    }
}

/// MQTT's rules for topic names (in `PUBLISH`) and topic filters (in `SUBSCRIBE`).
public enum MQTTTopic {
    /// Whether `topic` can be published to: not empty, no `+` or `#`, no U+0000, at most 65,535 bytes.
    public static func isValidName(_ topic: String) -> Bool {
        !topic.isEmpty && topic.utf8.count <= Int(UInt16.max)
            && !topic.utf8.contains(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") || $0 == 0 })
    }

    /// Whether a message on `topic` matches the subscription `filter` (`+` one level, `#` the rest;
    /// topics starting with `$` match only filters that name their first level).
    public static func matches(_ topic: String, filter: String) -> Bool {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let patterns = filter.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = patterns.first, first == "+" || first == "#" { return false }
        for (index, pattern) in patterns.enumerated() {
            if pattern == "#" { return true }
            guard index < levels.count, pattern == "+" || pattern == levels[index] else { return false }
        }
        return levels.count == patterns.count
    }

    /// Whether `filter` can be subscribed to: not empty, `+` only as a whole level, `#` only as the
    /// whole last level, no U+0000, at most 65,535 bytes.
    public static func isValidFilter(_ filter: String) -> Bool {
        guard !filter.isEmpty, filter.utf8.count <= Int(UInt16.max), !filter.utf8.contains(0) else { return false }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains("+") && level != "+" { return false }
            if level.contains("#") && (level != "#" || index != levels.count - 1) { return false }
        }
        return true
    }
}
