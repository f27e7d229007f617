/// What can be wrong with a topic or a payload of the wire contract.
public enum WireError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An identifier that does not match `[A-Za-z0-9._-]{1,64}`.
    case invalidIdentifier(String)
    /// A topic outside the contract's tree (wrong prefix, version or shape).
    case unknownTopic(String)
    /// A payload larger than the limit for its topic.
    case oversizedPayload(topic: String, bytes: Int, limit: Int)
    /// A payload that is not the JSON the topic expects; `reason` names the field.
    case invalidPayload(topic: String, reason: String)
    /// A payload whose `v` is not a version this build understands.
    case unsupportedVersion(topic: String, version: Int)

    public var description: String {
        switch self {
        case .invalidIdentifier(let text):
            return "invalid identifier \"\(text.prefix(80))\": expected 1 to 64 of [A-Za-z0-9._-]"
        case .unknownTopic(let topic):
            return "topic \"\(topic.prefix(200))\" is not part of the v1 contract"
        case .oversizedPayload(let topic, let bytes, let limit):
            return "payload on \(topic) is \(bytes) bytes, over the \(limit)-byte limit"
        case .invalidPayload(let topic, let reason):
            return "invalid payload on \(topic): \(reason)"
        case .unsupportedVersion(let topic, let version):
            return "payload on \(topic) has \"v\": \(version); this build understands v1"
        }
    }
}
