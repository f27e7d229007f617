public import Foundation

/// JSON encoders and decoders configured for the contract: RFC 3339 times with milliseconds,
/// sorted keys for stable output, unknown fields ignored.
public enum WireCoding {
    /// The largest payload accepted on any topic (sightings batches are the largest messages).
    public static let maximumPayloadBytes = 256 * 1024

    /// A JSON encoder for contract payloads.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.string(from: date))
        }
        return encoder
    }

    /// A JSON decoder for contract payloads.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = RFC3339.date(from: text) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "\"\(text.prefix(40))\" is not an RFC 3339 time"))
            }
            return date
        }
        return decoder
    }

    /// Encodes `payload` as a contract JSON object.
    public static func encode(_ payload: some Encodable) throws -> [UInt8] {
        Array(try makeEncoder().encode(payload))
    }

    /// Decodes a contract payload received on `topic`, checking its size and its `"v": 1`.
    /// Every failure is a ``WireError`` naming the topic and, where it can, the field.
    public static func decode<Payload: VersionedPayload>(
        _ type: Payload.Type, from bytes: some Collection<UInt8>, topic: String
    ) throws(WireError) -> Payload {
        guard bytes.count <= maximumPayloadBytes else {
            throw .oversizedPayload(topic: topic, bytes: bytes.count, limit: maximumPayloadBytes)
        }
        let value: Payload
        do {
            value = try makeDecoder().decode(Payload.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw .invalidPayload(topic: topic, reason: describe(error))
        } catch {
            throw .invalidPayload(topic: topic, reason: "\(error)")
        }
        guard value.v == 1 else { throw .unsupportedVersion(topic: topic, version: value.v) }
        return value
    }

    /// A one-line account of a decoding error that names the field path.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the payload" : "field " + String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) is not a \(type)"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null, expected \(type)"
        case .dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0))" } ?? ""
            return context.codingPath.isEmpty
                ? "not valid JSON\(underlying.prefix(120))"
                : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// A payload with the contract's `"v"` version field.
public protocol VersionedPayload: Codable, Sendable {
    /// The contract version; 1 for everything this build writes.
    var v: Int { get }
}
