public import MQTT

/// A message read (``InboundDecoder``) and waiting for the core: what it is, the bytes a
/// partitioned member may relay, and when it arrived (for the latency histogram).
public struct InboundMessage: Sendable {
    public var topic: String
    /// What the message is.
    public var payload: InboundPayload
    /// The bytes as received (a partitioned member relays a report it holds as it came,
    /// ``HeldReports``); `nil` for a sightings window, whose JSON is freed once read.
    public var bytes: MQTTPayload?
    public var received: ContinuousClock.Instant

    /// `queued`, read by `decoder`.
    public init(_ queued: QueuedMessage, decoder: InboundDecoder) {
        topic = queued.topic
        payload = queued.bytes.withUnsafeBytes { decoder.decode(topic: queued.topic, payload: $0) }
        if !payload.isSightings { bytes = queued.bytes }
        received = queued.received
    }

    /// The message on `topic` with `payload`, read by `decoder`.
    public init(topic: String, payload: [UInt8], decoder: InboundDecoder, received: ContinuousClock.Instant = .now) {
        self.init(
            QueuedMessage(topic: topic, bytes: payload.withUnsafeBytes { MQTTPayload(copying: $0) }, received: received), decoder: decoder)
    }

    /// Whether this is a sightings window, valid or not (which the queue may shed under overload,
    /// and which plans no phone at once).
    public var isSightings: Bool { Self.isSightings(topic: topic) }

    /// Whether `topic` is a sightings topic, by its last level alone (the cheap test the network
    /// thread and the queue make; the decoder routes it).
    static func isSightings(topic: String) -> Bool {
        let suffix = "/sightings".utf8
        return topic.utf8.count > suffix.count && topic.utf8.suffix(suffix.count).elementsEqual(suffix)
    }
}
