import Foundation

/// The spool shared between the pipeline's thread (which appends) and the publisher (which reads
/// and acknowledges), behind one lock.
final class SpoolBox: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private let spool: BatchSpool

    init(_ spool: BatchSpool) {
        self.spool = spool
    }

    /// Runs `body` with the spool, holding the lock.
    @discardableResult
    func withLock<Result>(_ body: (BatchSpool) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(spool)
    }
}

/// A value shared between tasks and threads behind a lock.
final class LockedValue<Value: Sendable>: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    var current: Value {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
