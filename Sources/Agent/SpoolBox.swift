import Synchronization

/// The spool shared between the pipeline's thread (which appends) and the publisher (which reads
/// and acknowledges), behind one lock.
final class SpoolBox: Sendable {
    private let spool: Mutex<BatchSpool>

    init(_ spool: consuming sending BatchSpool) {
        self.spool = Mutex(spool)
    }

    /// Runs `body` with the spool, holding the lock.
    @discardableResult
    func withLock<Result: Sendable, Failure: Error>(_ body: (BatchSpool) throws(Failure) -> Result) throws(Failure) -> Result {
        try spool.withLock { (spool) throws(Failure) -> Result in try body(spool) }
    }
}
