/// Where the client delivers received messages: a ``MQTTClient/messages`` stream, or a handler
/// registered with ``MQTTClient/handleReceived(_:)`` (or ``MQTTClient/handleMessages(_:)``).
enum MessageObserver: Sendable {
    case stream(AsyncStream<MQTTMessage>.Continuation)
    case handler(@Sendable (inout ReceivedMessage) -> Void)
}

/// A handler registered with ``MQTTClient/handleReceived(_:)`` or ``MQTTClient/handleMessages(_:)``;
/// ``cancel()`` stops delivery.
public struct MessageHandlerRegistration: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops delivery: messages received after this returns do not reach the handler (one being
    /// delivered at that moment still may). Safe to call more than once.
    public func cancel() {
        onCancel()
    }
}
