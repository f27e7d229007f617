public import WireProtocol

/// A message routed and, when it is a sightings batch, decoded and validated: the part of ingest
/// that needs no client state.
///
/// The service prepares each batch of messages while the ``CoordinatorCore`` actor applies the
/// previous one, so decoding (the largest cost per sighting) runs beside the actor instead of
/// inside it. The engine then only applies it
/// (``CoordinatorEngine/handle(_:topic:payload:now:)``); a message that failed here is counted
/// and reported there exactly as if the engine had rejected it itself.
public enum PreparedMessage: Sendable {
    /// A valid sightings batch of `gateway`.
    case sightings(gateway: String, batch: DecodedSightingsBatch)
    /// Refused: the error names the topic and the field; `rejection` says which counter it goes to.
    case rejected(WireError, Rejection)
    /// Anything else (reports, statuses, our own outputs): the engine reads it from its payload.
    case unprepared

    /// Which ``IngestCounters`` total a refused message counts in.
    public enum Rejection: Sendable {
        case invalidTopic, oversizedPayload, invalidPayload
    }

    /// Routes `topic` and, for a sightings topic, decodes and validates `payload`.
    public init(topic: String, payload: UnsafeRawBufferPointer, topics: Topics, decoder: SightingsBatchDecoder = SightingsBatchDecoder()) {
        let route: Topics.Route
        do {
            route = try topics.route(topic)
        } catch {
            self = .rejected(error, .invalidTopic)
            return
        }
        guard payload.count <= WireCoding.maximumPayloadBytes else {
            self = .rejected(.oversizedPayload(topic: topic, bytes: payload.count, limit: WireCoding.maximumPayloadBytes), .oversizedPayload)
            return
        }
        guard case .sightings(let gateway) = route else {
            self = .unprepared
            return
        }
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
