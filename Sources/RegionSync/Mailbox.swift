import Foundation

/// Holds the payloads a transport delivered until the session asks, with waits bounded by the
/// session's clock (an `AsyncStream` iterator cannot be abandoned on a timeout and read again).
actor Mailbox<Item: Sendable> {
    private var items: [Item] = []
    private var finished = false
    private var waiter: (ticket: Int, continuation: CheckedContinuation<Item?, Never>)?
    private var expired: Set<Int> = []
    private var nextTicket = 0

    func put(_ item: Item) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: item)
        } else {
            items.append(item)
        }
    }

    func finish() {
        finished = true
        waiter?.continuation.resume(returning: nil)
        waiter = nil
    }

    /// A ticket for one bounded wait.
    func ticket() -> Int {
        nextTicket += 1
        return nextTicket
    }

    /// The next item, or `nil` once finished or once `ticket` expired.
    func next(ticket: Int) async -> Item? {
        if !items.isEmpty { return items.removeFirst() }
        if finished || expired.contains(ticket) { return nil }
        return await withCheckedContinuation { waiter = (ticket, $0) }
    }

    /// Ends the wait of `ticket` (its time is up).
    func expire(_ ticket: Int) {
        expired.insert(ticket)
        if let waiter, waiter.ticket == ticket {
            self.waiter = nil
            waiter.continuation.resume(returning: nil)
        }
    }
}

/// A result that the first of two racers sets.
final class OneShot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?
    private var value: Value?

    /// Waits for ``resolve(_:)``; `start` runs once the waiter is in place.
    func wait(_ start: () -> Void) async -> Value {
        await withCheckedContinuation { continuation in
            lock.withLock { self.continuation = continuation }
            start()
        }
    }

    func resolve(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = lock.withLock {
            guard self.value == nil else { return nil }
            self.value = value
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(returning: value)
    }
}
