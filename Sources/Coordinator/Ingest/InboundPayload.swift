public import WireProtocol

/// What an inbound message is, decided once where it is first read (``InboundDecoder``): its topic
/// routed, its size checked, its payload decoded and validated. The engine applies it
/// (``CoordinatorEngine/apply(_:now:)``); a partitioned member first decides from it whether the
/// message is its own to apply.
public enum InboundPayload: Sendable {
    /// A valid sightings window of `gateway`.
    case sightings(gateway: String, DecodedSightingsBatch)
    /// A valid report of phone `client`.
    case report(client: String, ClientReport)
    /// A valid status of `gateway`.
    case gatewayStatus(gateway: String, GatewayStatus)
    /// A `regions` message for `client` (another member's, or this one's own coming back).
    case regions(client: String, RegionsMessage)
    /// A partitioned coordinator's status (another member's, or this one's own coming back).
    case memberStatus(CoordinatorMemberStatus)
    /// Nothing to apply: a client's events, a coordinator's status, a cleared retained message, a
    /// `regions` message that is not one.
    case ignored
    /// Refused: the error names the topic and the field; `rejection` says which counter it goes to.
    case rejected(WireError, Rejection)

    /// Which ``IngestCounters`` total a refused message counts in.
    public enum Rejection: Sendable {
        case invalidTopic, oversizedPayload, invalidPayload
    }

    /// Whether this is a sightings window (which may be shed under overload).
    public var isSightings: Bool {
        if case .sightings = self { true } else { false }
    }
}

/// Reads inbound messages: routes each topic once, checks the payload against the wire
/// contract's limit and decodes it, into an ``InboundPayload``.
///
/// Used from one task at a time: it reuses its memory. A decoded sightings window shares the
/// decoder's array until the next window is decoded; once the payload handed out is gone (the
/// engine applied it), that array is decoded into again without allocating.
public final class InboundDecoder {
    public let topics: Topics
    private let sightings = SightingsBatchDecoder()
    private let reports = WireCoding.makeDecoder()
    private var batch = DecodedSightingsBatch()

    public init(topics: Topics) {
        self.topics = topics
        batch.sightings.reserveCapacity(256)
    }

    /// What the message on `topic` with `payload` is.
    public func decode(topic: String, payload: UnsafeRawBufferPointer) -> InboundPayload {
        let route: Topics.Route
        do {
            route = try topics.route(topic)
        } catch {
            return .rejected(error, .invalidTopic)
        }
        guard payload.count <= WireCoding.maximumPayloadBytes else {
            return .rejected(
                .oversizedPayload(topic: topic, bytes: payload.count, limit: WireCoding.maximumPayloadBytes), .oversizedPayload)
        }
        do throws(WireError) {
            switch route {
            case .sightings(let gateway):
                try sightings.decode(payload, topic: topic, gateway: gateway.rawValue, into: &batch)
                return .sightings(gateway: gateway.rawValue, batch)
            case .clientReport(let client):
                return .report(client: client.rawValue, try ClientReport.decode(payload, topic: topic, decoder: reports))
            case .gatewayStatus(let gateway):
                if payload.isEmpty { return .ignored }  // a cleared retained status
                return .gatewayStatus(gateway: gateway.rawValue, try WireCoding.decode(GatewayStatus.self, from: payload, topic: topic))
            case .clientRegions(let client):
                // A cleared retained set, or one that does not decode, says nothing to adopt.
                guard !payload.isEmpty, let regions = try? WireCoding.decode(RegionsMessage.self, from: payload, topic: topic) else {
                    return .ignored
                }
                return .regions(client: client.rawValue, regions)
            case .coordinatorMember:
                // A cleared retained status (a member gone for good) says nothing.
                guard !payload.isEmpty else { return .ignored }
                return .memberStatus(try WireCoding.decode(CoordinatorMemberStatus.self, from: payload, topic: topic))
            case .clientEvents, .coordinatorStatus, .gatewayConfig:
                return .ignored  // outputs (ours or another coordinator's), not input
            }
        } catch {
            return .rejected(error, .invalidPayload)
        }
    }

    /// What the message on `topic` with `payload` is.
    public func decode(topic: String, payload: [UInt8]) -> InboundPayload {
        payload.withUnsafeBytes { decode(topic: topic, payload: $0) }
    }
}
