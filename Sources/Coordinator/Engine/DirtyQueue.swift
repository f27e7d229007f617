/// The clients with work pending for the next flush, in the order they became dirty, each once.
///
/// Marking a client already queued changes nothing (it keeps its place), so however many
/// sightings and reports arrive for it between two flushes it is estimated and planned once. A
/// flush takes the queue (``take()``) and hands back the clients it leaves dirty
/// (``requeue(_:)``, ``requeueFirst(_:)``); the ones it decided, or found gone, it clears
/// (``clear(_:)``). A slot freed and reused while queued stays queued once.
struct DirtyQueue {
    /// The clients queued, in order.
    private var queue: [Int32] = []
    /// Per client index: whether it is queued (or taken by a flush that has not cleared it).
    private var queued: [Bool] = []

    /// Clients queued.
    var count: Int { queue.count }

    /// Whether `client` is queued (or taken and not yet cleared).
    func contains(_ client: Int32) -> Bool { Int(client) < queued.count && queued[Int(client)] }

    /// Queues `client` unless it is queued already.
    @inline(__always)
    mutating func mark(_ client: Int32) {
        let i = Int(client)
        if i >= queued.count { queued.append(contentsOf: repeatElement(false, count: i - queued.count + 1)) }
        guard !queued[i] else { return }
        queued[i] = true
        queue.append(client)
    }

    /// Takes every queued client, in order, for a flush; each stays marked until ``clear(_:)``.
    mutating func take() -> [Int32] {
        defer { queue.removeAll(keepingCapacity: true) }
        return queue
    }

    /// `client`, taken, stays dirty: to the back of the queue.
    mutating func requeue(_ client: Int32) { queue.append(client) }

    /// `clients`, taken and not looked at, stay dirty ahead of every other.
    mutating func requeueFirst(_ clients: ArraySlice<Int32>) { queue.insert(contentsOf: clients, at: 0) }

    /// `client`, taken, was decided (or is gone): marking it queues it again.
    mutating func clear(_ client: Int32) { queued[Int(client)] = false }
}
