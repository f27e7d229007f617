/// What a byte stream reports: bytes received, or its end.
public enum MQTTByteStreamEvent: Sendable, Hashable {
    /// Bytes received, in order.
    case bytes([UInt8])
    /// The stream ended; `nil` when it was closed by this side, otherwise why it ended.
    case closed(PhoneMQTTError?)
}

/// A two-way byte stream to the broker, the only thing ``PhoneMQTTClient`` needs from the network:
/// TCP with or without TLS, or WebSocket, over `Network.framework` on Apple platforms
/// (``NetworkByteStream``) and SwiftNIO on Linux (``NIOByteStream``).
///
/// Writes are queued in the order of the calls (the client calls ``write(_:_:)`` from its actor, so
/// its packets never overtake one another) and each write is one whole packet.
public protocol MQTTByteStream: Sendable {
    /// The broker as the user wrote it (`mqtts://host:8883`), for messages.
    var endpoint: String { get }
    /// Everything received, in order, ending with one ``MQTTByteStreamEvent/closed(_:)``. One consumer.
    var inbound: AsyncStream<MQTTByteStreamEvent> { get }
    /// Starts connecting (TCP, then TLS and WebSocket if used) and calls `completion` once bytes can
    /// flow, or with why not. Called at most once.
    func open(_ completion: @escaping @Sendable (Result<Void, PhoneMQTTError>) -> Void)
    /// Queues `bytes` behind everything written before; `completion` once they are handed to the
    /// network, or with why not.
    func write(_ bytes: [UInt8], _ completion: @escaping @Sendable (PhoneMQTTError?) -> Void)
    /// Closes at once (idempotent): an open still under way fails, ``inbound`` ends.
    func close()
}
