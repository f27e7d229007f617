/// A gateway or client identifier as it may appear in a topic: `[A-Za-z0-9._-]{1,64}`.
///
/// Anything else is rejected before it reaches a topic, so a hostile identifier can never
/// inject `/`, `+` or `#` into the topic tree.
public struct Identifier: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The identifier's text, already validated.
    public let rawValue: String

    /// Validates `text`; throws ``WireError/invalidIdentifier(_:)`` when it is not a legal identifier.
    public init(_ text: String) throws(WireError) {
        guard Identifier.isValid(text) else { throw .invalidIdentifier(text) }
        self.rawValue = text
    }

    /// Validates `text`, returning `nil` when it is not a legal identifier.
    public init?(validating text: some StringProtocol) {
        guard Identifier.isValid(text) else { return nil }
        self.rawValue = String(text)
    }

    /// Whether `text` matches `[A-Za-z0-9._-]{1,64}`.
    public static func isValid(_ text: some StringProtocol) -> Bool {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 64 else { return false }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                continue
            default:
                return false
            }
        }
        return true
    }

    public var description: String { rawValue }
    public static func < (lhs: Identifier, rhs: Identifier) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let identifier = Identifier(validating: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "invalid identifier \"\(text)\": expected [A-Za-z0-9._-]{1,64}"))
        }
        self = identifier
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
