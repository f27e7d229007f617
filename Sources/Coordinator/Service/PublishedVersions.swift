import Synchronization

/// The newest `regions` version this coordinator handed to its MQTT client, per client: what keeps
/// the versions one coordinator publishes in increasing order on the wire, whichever task
/// publishes them.
///
/// Several tasks publish what the core decided — the process loop, the flush, housekeeping, and a
/// partitioned member's answer to held reports after a handover — and each one awaits the core and
/// then enqueues: between the two another task can enqueue a set decided later. Seen in CI
/// (`PartitionedCoordinatorBrokerTests`, not reproduced here): one member's …194 reached the broker
/// before its …193 for two phones — by the code, most likely its answer to held reports (a version
/// from the clock) enqueued after its process loop's answer to the next report (+1). Checking and enqueueing under one lock
/// makes that impossible: a set older than one already enqueued for its client is dropped (the
/// newer one is retained and carries the whole set; a phone treats the skip as "converge").
final class PublishedVersions: Sendable {
    private let versions = Mutex<[String: UInt64]>([:])

    init() {}

    /// What ``enqueue(client:version:_:)`` did.
    enum Outcome: Equatable {
        case enqueued
        /// A version not above one already enqueued for the client: dropped.
        case stale(newest: UInt64)
    }

    /// Runs `enqueue` (which hands the set to the MQTT client) only if `version` is above every
    /// version enqueued for `client` before, and notes it once `enqueue` returned; all under one lock.
    func enqueue<E: Error>(client: String, version: UInt64, _ enqueue: () throws(E) -> Void) throws(E) -> Outcome {
        try versions.withLock { (versions: inout [String: UInt64]) throws(E) -> Outcome in
            if let newest = versions[client], version <= newest { return .stale(newest: newest) }
            try enqueue()
            versions[client] = version
            return .enqueued
        }
    }

    /// The client's retained set was cleared (it expired): its next record starts from the clock.
    func forget(client: String) {
        _ = versions.withLock { $0.removeValue(forKey: client) }
    }
}
