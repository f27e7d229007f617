import Foundation

/// A value guarded by a `pthread_mutex_t`: the one exception to BeaconFleet's lock idiom,
/// `Synchronization.Mutex`.
///
/// Used only for the client core's state shared with libmosquitto's network thread (a C thread
/// that also takes libmosquitto's own pthread mutexes): on Linux `Mutex` is a bare futex, which the
/// thread sanitizer cannot see, so every access it guards there was reported as a race; a pthread
/// mutex is understood by the sanitizer and costs the same. Everything else uses `Mutex` (apart
/// from the network thread's reconnect wait, an `NSCondition`: a timed wait, which `Mutex` lacks).
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
