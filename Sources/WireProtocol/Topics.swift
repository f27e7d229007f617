/// The topic tree of the v1 wire contract under a configurable prefix (default `beaconfleet`).
///
/// ```
/// P/v1/gateways/{gw}/status       P/v1/clients/{id}/report
/// P/v1/gateways/{gw}/sightings    P/v1/clients/{id}/regions
/// P/v1/gateways/{gw}/config       P/v1/clients/{id}/events
/// P/v1/coordinator/status
/// ```
public struct Topics: Sendable, Hashable {
    /// The prefix before `/v1/`; may itself contain `/` but no wildcards.
    public let prefix: String

    /// The default prefix, `beaconfleet`.
    public static let defaultPrefix = "beaconfleet"

    /// Creates the topic tree under `prefix`; throws when the prefix is empty or holds `+`, `#` or NUL.
    public init(prefix: String = Topics.defaultPrefix) throws(WireError) {
        guard !prefix.isEmpty, !prefix.hasSuffix("/"), !prefix.hasPrefix("/"),
            !prefix.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" })
        else { throw .unknownTopic(prefix) }
        self.prefix = prefix
    }

    private var root: String { prefix + "/v1" }

    public func gatewayStatus(_ gateway: Identifier) -> String { "\(root)/gateways/\(Self.level(gateway))/status" }
    public func sightings(_ gateway: Identifier) -> String { "\(root)/gateways/\(Self.level(gateway))/sightings" }
    /// The coordinator's retained configuration for one gateway (``GatewayConfiguration``).
    public func gatewayConfig(_ gateway: Identifier) -> String { "\(root)/gateways/\(Self.level(gateway))/config" }
    public func clientReport(_ client: Identifier) -> String { "\(root)/clients/\(Self.level(client))/report" }
    public func clientRegions(_ client: Identifier) -> String { "\(root)/clients/\(Self.level(client))/regions" }
    public func clientEvents(_ client: Identifier) -> String { "\(root)/clients/\(Self.level(client))/events" }

    /// An identifier as its topic level: each `.` written as `:`. NATS maps MQTT's `/` to its subject
    /// separator `.` and disconnects a publisher whose topic holds one, so a tag's id
    /// (`UUID.MAJOR.MINOR`) could not appear in a topic there; `:` is not an identifier character,
    /// so ``route(_:)`` reads it back unambiguously. Ids without `.` are unchanged.
    public static func level(_ id: Identifier) -> String {
        replacing(UInt8(ascii: "."), with: UInt8(ascii: ":"), in: id.rawValue)
    }

    /// `text` with every `byte` (ASCII) as `replacement`, byte by byte: Foundation's
    /// `contains`/`replacingOccurrences` went through `NSString` and cost ~2 % of a busy
    /// coordinator's core (every `regions` and `events` topic it publishes).
    static func replacing(_ byte: UInt8, with replacement: UInt8, in text: String) -> String {
        guard text.utf8.contains(byte) else { return text }
        return String(decoding: text.utf8.map { $0 == byte ? replacement : $0 }, as: UTF8.self)
    }
    public var coordinatorStatus: String { "\(root)/coordinator/status" }

    /// Subscription filters.
    public var allGatewayStatus: String { "\(root)/gateways/+/status" }
    public var allSightings: String { "\(root)/gateways/+/sightings" }
    public var allGatewayConfigs: String { "\(root)/gateways/+/config" }
    public var allClientReports: String { "\(root)/clients/+/report" }
    public var allClientRegions: String { "\(root)/clients/+/regions" }
    public var allClientEvents: String { "\(root)/clients/+/events" }
    public var everything: String { "\(root)/#" }

    /// A topic of the contract, parsed.
    public enum Route: Hashable, Sendable {
        case gatewayStatus(Identifier)
        case sightings(Identifier)
        case gatewayConfig(Identifier)
        case clientReport(Identifier)
        case clientRegions(Identifier)
        case clientEvents(Identifier)
        case coordinatorStatus
        /// A partitioned coordinator's status (``Topics/coordinatorMember(_:)``).
        case coordinatorMember(Identifier)
    }

    /// Parses `topic` into a ``Route``; throws ``WireError`` for a topic outside the contract
    /// or an identifier that is not legal.
    public func route(_ topic: String) throws(WireError) -> Route {
        guard topic.hasPrefix(root + "/") else { throw .unknownTopic(topic) }
        let rest = topic.utf8.dropFirst(root.utf8.count + 1)
        let parts = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if parts.count == 2, parts[0].elementsEqual("coordinator".utf8), parts[1].elementsEqual("status".utf8) {
            return .coordinatorStatus
        }
        guard parts.count == 3 else { throw .unknownTopic(topic) }
        let idText = Self.replacing(UInt8(ascii: ":"), with: UInt8(ascii: "."), in: String(decoding: parts[1], as: UTF8.self))
        guard let id = Identifier(validating: idText) else { throw .invalidIdentifier(idText) }
        switch (String(decoding: parts[0], as: UTF8.self), String(decoding: parts[2], as: UTF8.self)) {
        case ("gateways", "status"): return .gatewayStatus(id)
        case ("gateways", "sightings"): return .sightings(id)
        case ("gateways", "config"): return .gatewayConfig(id)
        case ("clients", "report"): return .clientReport(id)
        case ("clients", "regions"): return .clientRegions(id)
        case ("clients", "events"): return .clientEvents(id)
        case ("coordinators", "status"): return .coordinatorMember(id)
        default: throw .unknownTopic(topic)
        }
    }
}
