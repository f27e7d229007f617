import Synchronization

/// A value shared by reference between tasks and threads, behind a `Mutex` (a `Mutex` itself cannot
/// be copied into the closures that share it).
final class LockedValue<Value: Sendable>: Sendable {
    private let value: Mutex<Value>

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    var current: Value {
        value.withLock { $0 }
    }

    func update<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        value.withLock { body(&$0) }
    }
}
