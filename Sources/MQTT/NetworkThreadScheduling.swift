#if canImport(Glibc)
    import Glibc
#endif

/// How the kernel schedules a client's network thread (the thread that reads the socket and hands
/// messages to ``MQTTClient/messages``) against the other threads of the process.
public enum NetworkThreadScheduling: Sendable, Hashable {
    /// The kernel's default policy (`SCHED_OTHER`): each time bytes arrive the thread wakes and,
    /// on a core that is busy, preempts the thread running there. Right for a client that mostly
    /// waits: each message is handed over as soon as it arrives.
    case standard
    /// `SCHED_BATCH` on Linux: the thread keeps its fair share of the CPU, but its wakeups no longer
    /// preempt. For a connection that brings a stream heavy enough to keep a core busy (the
    /// coordinator's sightings), when the consumer shares that core: the consumer is no longer cut
    /// off each time a piece of a large message arrives, and the network thread reads larger pieces
    /// less often. A message may wait up to one scheduler slice (a few milliseconds) longer on a
    /// busy core; on an idle core nothing changes. Elsewhere the same as ``standard``.
    case batch

    /// Applies this policy to the calling thread; returns the `errno` text when the kernel refuses it.
    func applyToCurrentThread() -> String? {
        #if os(Linux)
            guard self == .batch else { return nil }
            // On Linux `sched_setscheduler(0, …)` changes the calling thread, not the whole process.
            // SCHED_BATCH (3) is behind _GNU_SOURCE in <sched.h>, which Swift's Glibc module does not see.
            var parameter = sched_param(sched_priority: 0)
            let schedBatch: Int32 = 3
            return sched_setscheduler(0, schedBatch, &parameter) == 0 ? nil : String(cString: strerror(errno))
        #else
            return nil
        #endif
    }
}
