/// The life of one byte stream's connection, the same on every platform: the open's completion
/// (called once), whether this side closed it, the first failure seen, and ``inbound``'s end
/// (once, with the reason), so that ``NetworkByteStream`` on Apple platforms and ``NIOByteStream``
/// on Linux report the same things the same way, and the Apple path runs the code Linux tests.
final class ByteStreamLifecycle: Sendable {
    /// The broker's URL, for messages.
    let endpoint: String
    /// The bytes received, then the end.
    let inbound: AsyncStream<MQTTByteStreamEvent>
    private let events: AsyncStream<MQTTByteStreamEvent>.Continuation

    private struct State {
        /// The open's completion until it is called.
        var opening: (@Sendable (Result<Void, PhoneMQTTError>) -> Void)?
        var isStarted = false
        var isReady = false
        var closedByUs = false
        var isEnded = false
        /// The first failure seen: the reason when the connection then ends.
        var failure: PhoneMQTTError?
    }
    private let state = Locked(State())

    init(endpoint: String) {
        self.endpoint = endpoint
        (inbound, events) = AsyncStream.makeStream(of: MQTTByteStreamEvent.self)
    }

    /// Whether ``start(_:)`` was called.
    var isStarted: Bool { state.withLock { $0.isStarted } }
    /// Whether bytes could flow (``ready()`` was called).
    var isReady: Bool { state.withLock { $0.isReady } }
    /// Whether ``inbound`` has ended.
    var isEnded: Bool { state.withLock { $0.isEnded } }

    /// Keeps the open's `completion`; `false` (and `completion` called with why) when this side
    /// closed the stream before it was opened.
    func start(_ completion: @escaping @Sendable (Result<Void, PhoneMQTTError>) -> Void) -> Bool {
        let closed = state.withLock { state in
            state.isStarted = true
            if !state.closedByUs { state.opening = completion }
            return state.closedByUs
        }
        if closed { completion(.failure(.connectionClosed(endpoint: endpoint, reason: "closed by this client before it opened"))) }
        return !closed
    }

    /// Bytes can flow: the open succeeds.
    func ready() {
        state.withLock { $0.isReady = true }
        finishOpening(.success(()))
    }

    /// Hands received bytes to ``inbound``.
    func received(_ bytes: [UInt8]) {
        if !bytes.isEmpty { events.yield(.bytes(bytes)) }
    }

    /// Records a failure; the first one is the reason when the connection ends.
    func fail(_ failure: PhoneMQTTError) {
        state.withLock { state in
            if state.failure == nil { state.failure = failure }
        }
    }

    /// This side closes the stream: an open under way fails.
    func close() {
        state.withLock { $0.closedByUs = true }
        finishOpening(.failure(.connectionClosed(endpoint: endpoint, reason: "closed by this client while connecting")))
    }

    /// The connection is gone: an open under way fails and ``inbound`` ends, without a reason when
    /// this side closed it, otherwise with the first failure recorded or, if none, `fallback`.
    func end(otherwise fallback: PhoneMQTTError) {
        let reason: PhoneMQTTError? = state.withLock { $0.closedByUs ? nil : $0.failure ?? fallback }
        finishOpening(.failure(reason ?? .connectionClosed(endpoint: endpoint, reason: "closed by this client while connecting")))
        let first = state.withLock { state in
            defer { state.isEnded = true }
            return !state.isEnded
        }
        guard first else { return }
        events.yield(.closed(reason))
        events.finish()
    }

    private func finishOpening(_ result: Result<Void, PhoneMQTTError>) {
        let completion = state.withLock { state in
            defer { state.opening = nil }
            return state.opening
        }
        completion?(result)
    }
}
