/// Which clients' Home Assistant messages go out next: each client at most once per `interval`
/// (what it shows then is its newest state), the longest waiting first, so that under a cap on
/// messages none starves.
struct HomeAssistantPacer: Sendable {
    let interval: Duration
    private var queue: [String] = []
    private var head = 0
    private var queued: Set<String> = []
    private var last: [String: ContinuousClock.Instant] = [:]

    init(interval: Duration) { self.interval = interval }

    /// Clients waiting.
    var count: Int { queued.count }

    /// Marks `ids` as changed (a client already waiting keeps its place).
    mutating func add(_ ids: some Sequence<String>) {
        for id in ids where queued.insert(id).inserted { queue.append(id) }
    }

    /// Up to `limit` waiting clients not sent within `interval` before `now`, oldest first; they
    /// count as sent at `now`. Those sent too recently keep waiting.
    mutating func take(upTo limit: Int, now: ContinuousClock.Instant) -> [String] {
        var taken: [String] = []
        var early: [String] = []
        while taken.count < limit, head < queue.count {
            let id = queue[head]
            head += 1
            if let sent = last[id], now - sent < interval {
                early.append(id)
                continue
            }
            queued.remove(id)
            last[id] = now
            taken.append(id)
        }
        queue.append(contentsOf: early)
        if head > 1_024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return taken
    }

    /// Forgets when `id` was sent (it expired: a new client of that id may be sent at once).
    mutating func forget(_ id: String) { last[id] = nil }
}
