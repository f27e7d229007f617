import Synchronization

/// Recognises a phone report received again: the same bytes on the same topic within about a
/// minute. Such a report is one the coordinator has already taken, and is dropped before the queue.
///
/// Repeats are expected: a phone may send each report twice, a QoS 0 copy before the QoS 1 report
/// (RegionSync's `Options.reportCopy`, for a NATS cluster, where a QoS 1 publish waits for
/// JetStream and after a node kill waited 8–9 s while QoS 0 took core NATS at once), and a NATS
/// node may deliver a QoS 1 message twice. A report carries the phone's `time` to the millisecond,
/// so two different reports are never the same bytes.
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
}
