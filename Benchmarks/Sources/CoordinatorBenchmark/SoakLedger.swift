import Foundation

/// What the soak's phones are waiting for: the time each sent its report, until the answer (its
/// `regions` message) comes or 10 s pass and the report counts as lost. Written by the sending task
/// and by the phones' connection thread, hence the lock.
final class SoakLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Double?]
    private var latencies: [Double] = []
    private var lost = 0
    private var sent = 0
    private var unsolicited = 0

    init(phones: Int) { pending = Array(repeating: nil, count: phones) }

    /// Phone `phone` sent a report at `time` (seconds, monotonic). A report of its still waiting for
    /// an answer is counted lost: it had its 10 s (a phone reports every ~10 s).
    func sent(_ phone: Int, at time: Double) {
        lock.withLock {
            if pending[phone] != nil { lost += 1 }
            pending[phone] = time
            sent += 1
        }
    }

    /// A `regions` message for `phone` arrived at `time`: the answer to its report, if one waits.
    func answered(_ phone: Int, at time: Double) {
        lock.withLock {
            guard let start = pending[phone] else {
                unsolicited += 1
                return
            }
            latencies.append(time - start)
            pending[phone] = nil
        }
    }

    /// Reports sent before `deadline` and still unanswered count as lost from now on.
    func expire(sentBefore deadline: Double) {
        lock.withLock {
            for i in pending.indices where pending[i].map({ $0 < deadline }) ?? false {
                pending[i] = nil
                lost += 1
            }
        }
    }

    /// Reports still waiting.
    var waiting: Int { lock.withLock { pending.lazy.filter { $0 != nil }.count } }

    /// The latencies (seconds) and lost reports since the last take, and the reports sent and the
    /// regions messages that answered nothing, in all.
    func take() -> (latencies: [Double], lost: Int, sent: Int, unsolicited: Int) {
        lock.withLock {
            defer {
                latencies = []
                lost = 0
            }
            return (latencies, lost, sent, unsolicited)
        }
    }
}
