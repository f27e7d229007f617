import Foundation

/// A value guarded by a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex` for state shared with libmosquitto's network thread: on
/// Linux that `Mutex` is a bare futex, which the thread sanitizer cannot see, so every access it
/// guards was reported as a race; a pthread mutex is understood by the sanitizer and costs the same.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
