public import MQTT
import Synchronization
import WireProtocol

/// A message as it waits in the ``IngestQueue``: its topic and its bytes as received, and when it
/// arrived (for the latency histogram). Read once taken (``InboundMessage``).
public struct QueuedMessage: Sendable {
    public var topic: String
    /// The payload as received: a sightings window's JSON taken from the MQTT client without a copy
    /// (``MQTT/ReceivedMessage/takePayload()``).
    public var bytes: MQTTPayload
    public var received: ContinuousClock.Instant

    public init(topic: String, bytes: MQTTPayload, received: ContinuousClock.Instant = .now) {
        self.topic = topic
        self.bytes = bytes
        self.received = received
    }

    /// Whether this is a sightings window (which may be shed under overload).
    public var isSightings: Bool { InboundMessage.isSightings(topic: topic) }
}

/// The bounded queue between the MQTT receive loop and the engine.
///
/// Two lanes: sightings batches are bounded and, under overload, the *oldest* are shed (and
/// counted): a newer window says more about where clients are. Everything else (phones'
/// reports, gateways' status) goes to a lane that is never shed and is served first.
public final class IngestQueue: Sendable {
    private struct Lane {
        /// Taken items are `nil` up to `head`: a message handed out is not held here as well (its
        /// payload is freed when its taker is done with it, not when the lane next compacts).
        var items: [QueuedMessage?] = []
        var head = 0
        var count: Int { items.count - head }

        mutating func append(_ item: QueuedMessage) { items.append(item) }

        mutating func popFirst() -> QueuedMessage? {
            guard head < items.count else { return nil }
            let item = items[head].take()
            head += 1
            if head >= 1024, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return item
        }
    }

    /// The sightings lane, which also knows whether it holds a backlog (see ``sightingsBacklogged(olderThan:now:)``).
    private struct SightingsLane {
        var lane = Lane()
        /// When the lane last went from empty to waiting (`nil` while it is empty).
        var waitingSince: ContinuousClock.Instant?
        /// Batches waiting per topic (per gateway), and how many topics have more than one waiting.
        var waitingPerTopic: [String: Int] = [:]
        var repeatedTopics = 0
        var count: Int { lane.count }

        mutating func append(_ item: QueuedMessage) {
            if lane.count == 0 { waitingSince = item.received }
            lane.append(item)
            let waiting = waitingPerTopic[item.topic, default: 0] + 1
            waitingPerTopic[item.topic] = waiting
            if waiting == 2 { repeatedTopics += 1 }
        }

        mutating func popFirst() -> QueuedMessage? {
            guard let item = lane.popFirst() else { return nil }
            let waiting = waitingPerTopic[item.topic, default: 1] - 1
            waitingPerTopic[item.topic] = waiting > 0 ? waiting : nil
            if waiting == 1 { repeatedTopics -= 1 }
            if lane.count == 0 { waitingSince = nil }
            return item
        }
    }

    private struct State {
        var sightings = SightingsLane()
        var priority = Lane()
        var shed: UInt64 = 0
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
    }

    /// The most sightings batches kept waiting.
    public let sightingsLimit: Int
    private let state = Mutex(State())

    public init(sightingsLimit: Int = 10_000) {
        self.sightingsLimit = max(1, sightingsLimit)
    }

    /// Queues `message`; a sightings batch beyond the limit pushes the oldest one out.
    public func push(_ message: QueuedMessage, isSightings: Bool) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            if isSightings {
                if state.sightings.count >= sightingsLimit {
                    _ = state.sightings.popFirst()
                    state.shed += 1
                }
                state.sightings.append(message)
            } else {
                state.priority.append(message)
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Takes up to `limit` messages, reports and statuses first (see ``pop(upTo:from:)``), without
    /// waiting (empty when none is queued).
    public func poll(upTo limit: Int) -> [QueuedMessage] {
        state.withLock { IngestQueue.pop(upTo: limit, from: &$0) }
    }

    /// Up to `limit` messages off `state`'s lanes: reports and statuses alone while any wait, so
    /// a phone's answer is not decided in the same step as a window of sightings; else sightings.
    private static func pop(upTo limit: Int, from state: inout State) -> [QueuedMessage] {
        var out: [QueuedMessage] = []
        while out.count < limit, let item = state.priority.popFirst() { out.append(item) }
        guard out.isEmpty else { return out }
        while out.count < limit, let item = state.sightings.popFirst() { out.append(item) }
        return out
    }

    /// Takes up to `limit` messages, reports and statuses first; waits while the queue is empty.
    /// Returns an empty array once the queue is closed and empty.
    public func take(upTo limit: Int) async -> [QueuedMessage] {
        while true {
            let batch = state.withLock { state -> [QueuedMessage]? in
                let out = IngestQueue.pop(upTo: limit, from: &state)
                if out.isEmpty && !state.closed { return nil }
                return out
            }
            if let batch { return batch }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.closed || state.priority.count > 0 || state.sightings.count > 0 { return true }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// Ends the queue: ``take(upTo:)`` drains what is left, then returns empty.
    public func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Whether the coordinator is behind on sightings: a gateway has a second batch waiting behind
    /// its first (more than a window is queued), or batches have been waiting, without the lane
    /// emptying once, for more than `age` before `now`. The gateways' batches of one window arrive
    /// together and wait a moment for one another while the first is applied, then the lane
    /// empties: that is not a backlog.
    public func sightingsBacklogged(olderThan age: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            guard state.sightings.count > 0 else { return false }
            if state.sightings.repeatedTopics > 0 { return true }
            guard let since = state.sightings.waitingSince else { return false }
            return now - since > age
        }
    }

    /// Waiting messages per lane, and sightings batches shed so far.
    public var depths: (sightings: Int, priority: Int, shed: UInt64) {
        state.withLock { ($0.sightings.count, $0.priority.count, $0.shed) }
    }
}
