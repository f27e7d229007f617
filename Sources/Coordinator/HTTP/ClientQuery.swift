/// What `GET /api/clients` selects: `?kind=phone|tag`, `?level=ID`, `?present=true|false`, and the
/// page `?limit=N&offset=N` (clients in id order).
public struct ClientQuery: Sendable, Equatable {
    /// A phone reports; a tag is only heard by gateways.
    public enum Kind: String, Sendable { case phone, tag }

    public var kind: Kind?
    /// Only clients estimated on this level (unplaced ones have none).
    public var level: String?
    public var present: Bool?
    /// At most this many (1…``maximumLimit``).
    public var limit: Int = ClientQuery.defaultLimit
    public var offset: Int = 0

    public static let defaultLimit = 100
    public static let maximumLimit = 1_000

    public init(kind: Kind? = nil, level: String? = nil, present: Bool? = nil, limit: Int = ClientQuery.defaultLimit, offset: Int = 0) {
        self.kind = kind
        self.level = level
        self.present = present
        self.limit = limit
        self.offset = offset
    }

    /// Parses a query string's parameters (already percent-decoded). `token` is the bearer token
    /// (see ``HTTPAccessToken``) and ignored here; any other unknown parameter is an error, so a
    /// typo never silently widens the answer.
    public init(parameters: [(name: String, value: String)]) throws(HTTPQueryError) {
        var seen = Set<String>()
        for (name, value) in parameters {
            guard seen.insert(name).inserted else { throw HTTPQueryError(parameter: name, "given more than once") }
            switch name {
            case "kind":
                guard let kind = Kind(rawValue: value) else {
                    throw HTTPQueryError(parameter: name, "expected phone or tag, got '\(value)'")
                }
                self.kind = kind
            case "level":
                guard !value.isEmpty, value.count <= 64 else { throw HTTPQueryError(parameter: name, "expected a level id") }
                level = value
            case "present":
                switch value {
                case "true": present = true
                case "false": present = false
                default: throw HTTPQueryError(parameter: name, "expected true or false, got '\(value)'")
                }
            case "limit":
                guard let limit = Int(value), (1...Self.maximumLimit).contains(limit) else {
                    throw HTTPQueryError(parameter: name, "expected 1…\(Self.maximumLimit), got '\(value)'")
                }
                self.limit = limit
            case "offset":
                guard let offset = Int(value), offset >= 0 else {
                    throw HTTPQueryError(parameter: name, "expected a count ≥ 0, got '\(value)'")
                }
                self.offset = offset
            case "token":
                continue
            default:
                throw HTTPQueryError(parameter: name, "unknown parameter (kind, level, present, limit, offset)")
            }
        }
    }
}

/// A query parameter the API cannot use: answered 400 with `{"error": …, "parameter": …}`.
public struct HTTPQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    public var parameter: String
    public var reason: String

    public init(parameter: String, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }

    public var description: String { "\(parameter): \(reason)" }
}
