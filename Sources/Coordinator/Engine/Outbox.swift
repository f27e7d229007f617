/// What the engine decided since the service last took it: the messages to publish, in order,
/// and the clients to write, forget and show as changed. Filled as the engine decides; emptied by
/// one ``take()``.
struct Outbox {
    /// The messages decided, in order.
    private(set) var messages: [CoordinatorOutput] = []
    /// Clients whose state may be due for the store (their ``ClientRecord/needsPersist`` decides).
    private var persist: [Int32] = []
    /// Ids of clients forgotten.
    private var removed: [String] = []
    /// Whether clients whose estimate or presence changed are noted (for the live map's stream and
    /// Home Assistant); off while nobody watches, so it costs nothing then.
    var tracksTouched = false
    private var touched: [Int32] = []

    /// Everything one ``take()`` hands over.
    struct Taken {
        var messages: [CoordinatorOutput]
        var persist: [Int32]
        var removed: [String]
        /// Each client once, in the order first touched.
        var touched: [Int32]
    }

    /// Queues `output` for publishing.
    mutating func publish(_ output: CoordinatorOutput) { messages.append(output) }

    /// `client`'s state may be due for the store.
    mutating func persist(_ client: Int32) { persist.append(client) }

    /// The client `id` was forgotten.
    mutating func removed(_ id: String) { removed.append(id) }

    /// `client`'s estimate or presence changed (noted while ``tracksTouched``).
    @inline(__always)
    mutating func touch(_ client: Int32) { if tracksTouched { touched.append(client) } }

    /// `clients`' presence changed (noted while ``tracksTouched``).
    mutating func touch(contentsOf clients: [Int32]) { if tracksTouched { touched.append(contentsOf: clients) } }

    /// Takes everything decided since the last call.
    mutating func take() -> Taken {
        var seen = Set<Int32>(minimumCapacity: touched.count)
        let taken = Taken(
            messages: messages, persist: persist, removed: removed,
            touched: touched.isEmpty ? [] : touched.filter { seen.insert($0).inserted })
        messages.removeAll(keepingCapacity: true)
        persist.removeAll(keepingCapacity: true)
        removed.removeAll()
        touched.removeAll(keepingCapacity: true)
        return taken
    }
}

/// What the engine decided since the last ``CoordinatorEngine/take()``: write `changed` and forget
/// `removed` in the store, then publish `outputs`.
public struct CoordinatorDecisions: Sendable {
    /// The messages to publish, in order.
    public var outputs: [CoordinatorOutput]
    /// The state of every client changed (to write before publishing).
    public var changed: [StoredClient]
    /// The ids of clients forgotten (expired or merged).
    public var removed: [String]
    /// The clients whose estimate or presence changed, each once, while
    /// ``CoordinatorEngine/tracksTouched`` is on (see ``CoordinatorEngine/markers(of:)``).
    public var touched: [Int32]
}
