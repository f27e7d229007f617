import Synchronization

/// Recognises a phone report received again: the same bytes, naming their `time`, on the same
/// topic within about a minute. Such a report is one the coordinator has already taken, and is
/// dropped before the queue.
///
/// Repeats are expected: a phone may send each report twice, a QoS 0 copy before the QoS 1 report
/// (RegionSync's `Options.reportCopy`, for a NATS cluster, where a QoS 1 publish waits for
/// JetStream and after a node kill waited 8–9 s while QoS 0 took core NATS at once), and a NATS
/// node may deliver a QoS 1 message twice. A report that carries the phone's `time` (RegionSync's
/// always do) names it to the millisecond, so two different reports are never the same bytes. One
/// without `time` (the contract allows it: the time is then its arrival) may repeat its bytes as a
/// new report, and is never taken for a repeat.
///
/// Called on the MQTT client's network thread. Memory stays bounded: two generations of
/// fingerprints, the older dropped every ``window`` seconds.
final class RepeatedReports: Sendable {
    private struct Generations {
        var current: Set<Fingerprint> = []
        var previous: Set<Fingerprint> = []
        var rotated: ContinuousClock.Instant = .now
    }

    private struct Fingerprint: Hashable {
        var topic: String
        var length: Int
        var hash: Int
    }

    /// Seconds a fingerprint is kept at least (and at most twice that).
    let window: Duration
    private let state = Mutex(Generations())

    init(window: Duration = .seconds(30)) {
        self.window = window
    }

    /// Whether `payload` on `topic` was seen in the last ``window`` (at least); notes it otherwise.
    func isRepeat(topic: String, payload: [UInt8], now: ContinuousClock.Instant = .now) -> Bool {
        guard Self.namesTime(payload) else { return false }
        var hasher = Hasher()
        payload.withUnsafeBytes { hasher.combine(bytes: $0) }
        let fingerprint = Fingerprint(topic: topic, length: payload.count, hash: hasher.finalize())
        return state.withLock { state in
            if now - state.rotated >= window {
                state.previous = now - state.rotated >= window * 2 ? [] : state.current
                state.current = []
                state.rotated = now
            }
            if state.current.contains(fingerprint) || state.previous.contains(fingerprint) { return true }
            state.current.insert(fingerprint)
            return false
        }
    }

    private static let timeKey = Array(#""time":"#.utf8)

    /// Whether `payload` holds the bytes `"time":` (a report naming its time; other JSON that
    /// happens to contain them only makes a repeat of itself droppable).
    static func namesTime(_ payload: [UInt8]) -> Bool {
        let key = timeKey
        guard payload.count >= key.count else { return false }
        for i in 0...(payload.count - key.count) where payload[i] == 0x22 && payload[i + 1] == 0x74 {
            if payload[i..<(i + key.count)].elementsEqual(key) { return true }
        }
        return false
    }
}
