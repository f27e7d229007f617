public import WireProtocol

/// A message routed, size-checked and, when it is a sightings batch, decoded and validated: the
/// part of ingest that needs no client state.
///
/// The service prepares each batch of messages while the ``CoordinatorCore`` actor applies the
/// previous one, so decoding (the largest cost per sighting) runs beside the actor instead of
/// inside it. The engine then only applies it
/// (``CoordinatorEngine/handle(_:topic:payload:now:)``), and counts and reports a message refused
/// here exactly as one it refused itself. The engine's own byte path
/// (``CoordinatorEngine/handle(topic:payload:now:)``) starts from ``init(routing:payloadBytes:topics:)``,
/// so topics are routed and sizes checked in one place.
public enum PreparedMessage: Sendable {
    /// A valid sightings batch of `gateway`.
    case sightings(gateway: String, batch: DecodedSightingsBatch)
    /// Refused: the error names the topic and the field; `rejection` says which counter it goes to.
    case rejected(WireError, Rejection)
    /// Routed and within the size limit; the payload is still to be read (reports, statuses, our
    /// own outputs, or a sightings batch the engine decodes itself).
    case routed(Topics.Route)

    /// Which ``IngestCounters`` total a refused message counts in.
    public enum Rejection: Sendable {
        case invalidTopic, oversizedPayload, invalidPayload
    }

    /// Routes `topic` and checks a payload of `payloadBytes` against the wire contract's limit.
    public init(routing topic: String, payloadBytes: Int, topics: Topics) {
        let route: Topics.Route
        do {
            route = try topics.route(topic)
        } catch {
            self = .rejected(error, .invalidTopic)
            return
        }
        guard payloadBytes <= WireCoding.maximumPayloadBytes else {
            self = .rejected(.oversizedPayload(topic: topic, bytes: payloadBytes, limit: WireCoding.maximumPayloadBytes), .oversizedPayload)
            return
        }
        self = .routed(route)
    }

    /// Routes `topic`, checks the size and, for a sightings topic, decodes and validates `payload`.
    public init(topic: String, payload: UnsafeRawBufferPointer, topics: Topics, decoder: SightingsBatchDecoder = SightingsBatchDecoder()) {
        self.init(routing: topic, payloadBytes: payload.count, topics: topics)
        guard case .routed(.sightings(let gateway)) = self else { return }
        var batch = DecodedSightingsBatch()
        do {
            try decoder.decode(payload, topic: topic, gateway: gateway.rawValue, into: &batch)
        } catch {
            self = .rejected(error, .invalidPayload)
            return
        }
        self = .sightings(gateway: gateway.rawValue, batch: batch)
    }
}
