import Synchronization

/// A partitioned member's absences from the broker: it keeps its place in the live set while it
/// is back (connected and subscribed again) within ``grace`` of losing the connection, and leaves
/// it only once the grace has passed; a member that left joins again once back. A NATS cluster
/// drops every MQTT client more than once in the seconds after a node kill: leaving at once moved
/// partitions away and back at each drop (docs/partitioning.md). The reports a member missed
/// while it rode a failover out are relayed by the others (``HeldReports/noteStatus(partitions:at:)``).
final class BrokerAbsence: Sendable {
    private struct State {
        var away = false
        var left = false
        /// Counts absences, so that a grace that ends after its absence did does nothing.
        var absence = 0
    }

    /// How long a member may be off the broker and keep its place in the live set.
    let grace: Duration
    private let state = Mutex(State())

    init(grace: Duration) {
        self.grace = grace
    }

    /// The connection was lost: the number of this absence, whose grace the caller waits out
    /// before ``graceEnded(_:leave:)``; `nil` while an absence is already running (a connection lost
    /// again before the member was back: the first loss's grace holds).
    func lost() -> Int? {
        state.withLock { state in
            guard !state.away else { return nil }
            state.away = true
            state.absence += 1
            return state.absence
        }
    }

    /// The grace of `absence` has passed: calls `leave` (under the lock, so it cannot cross
    /// ``back(rejoin:)``) when the member is still away in that absence. Returns whether it left.
    @discardableResult
    func graceEnded(_ absence: Int, leave: () -> Void) -> Bool {
        state.withLock { state in
            guard state.away, state.absence == absence, !state.left else { return false }
            state.left = true
            leave()
            return true
        }
    }

    /// The member is connected and subscribed again: calls `rejoin` (under the lock) when it left
    /// the live set. Returns whether it had left; `false` means it rode the absence out.
    func back(rejoin: () -> Void) -> Bool {
        state.withLock { state in
            let left = state.left
            state.away = false
            state.left = false
            if left { rejoin() }
            return left
        }
    }
}
