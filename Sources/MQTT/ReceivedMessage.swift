import CMosquitto

/// A message as a handler registered with ``MQTTClient/handleReceived(_:)`` gets it: the payload
/// still where libmosquitto put it, for the handler to copy (``message()``) or take
/// (``takePayload()``), whichever it needs.
///
/// Noncopyable, and only lent to the handler: ``payload`` is freed when the handler returns unless
/// the handler took it. Never keep the pointer.
public struct ReceivedMessage: ~Copyable {
    /// The topic the message was published on (never a filter).
    public let topic: String
    /// The QoS the message was delivered with.
    public let qos: QoS
    /// Whether the broker delivered it as a retained message.
    public let retain: Bool
    /// MQTT 5 user properties, in the order they were sent; always empty under MQTT 3.1.1.
    public let userProperties: [MQTTUserProperty]
    /// libmosquitto's message, whose payload ``takePayload()`` may take; `nil` for a message the
    /// client had already copied (one that waited for its first consumer).
    private let source: UnsafeMutablePointer<mosquitto_message>?
    /// The payload bytes, possibly empty; valid only until the handler returns (empty once taken).
    public private(set) var payload: UnsafeRawBufferPointer

    /// A message libmosquitto holds (`source`).
    init(_ source: UnsafeMutablePointer<mosquitto_message>, userProperties: [MQTTUserProperty]) {
        let raw = source.pointee
        self.topic = raw.topic.map { String(cString: $0) } ?? ""
        self.qos = QoS(rawValue: raw.qos) ?? .atMostOnce
        self.retain = raw.retain
        self.userProperties = userProperties
        self.source = source
        self.payload = UnsafeRawBufferPointer(start: raw.payload, count: raw.payload == nil ? 0 : Int(raw.payloadlen))
    }

    /// A message the client holds as an ``MQTTMessage`` (its payload in place, `bytes`).
    init(_ message: MQTTMessage, bytes: UnsafeRawBufferPointer) {
        self.topic = message.topic
        self.qos = message.qos
        self.retain = message.retain
        self.userProperties = message.userProperties
        self.source = nil
        self.payload = bytes
    }

    /// The message with a copy of its payload that it owns.
    public func message() -> MQTTMessage {
        MQTTMessage(topic: topic, payload: Array(payload), qos: qos, retain: retain, userProperties: userProperties)
    }

    /// The payload, taken over from libmosquitto without a copy: libmosquitto allocated it for this
    /// message and frees it after the handlers unless it was taken, so taking it leaves it a null
    /// payload to free. (A message the client already held as an ``MQTTMessage`` is copied.) After
    /// this ``payload`` is empty, for this handler and any after it (the client's handlers run in
    /// no set order, so take only what no other handler reads).
    public mutating func takePayload() -> MQTTPayload {
        defer { payload = UnsafeRawBufferPointer(start: nil, count: 0) }
        guard let source, let start = source.pointee.payload else { return MQTTPayload(copying: payload) }
        source.pointee.payload = nil
        source.pointee.payloadlen = 0
        return MQTTPayload(adopting: start, count: payload.count)
    }
}

extension MQTTMessage {
    /// Calls `body` with this message lent as a ``ReceivedMessage`` (its payload in place).
    func withReceived<Result>(_ body: (inout ReceivedMessage) throws -> Result) rethrows -> Result {
        try payload.withUnsafeBytes { bytes in
            var received = ReceivedMessage(self, bytes: bytes)
            return try body(&received)
        }
    }
}
