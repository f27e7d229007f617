import Foundation

/// A value behind a lock. (`Synchronization.Mutex` needs iOS 18; this library supports iOS 16.)
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// One answer that whoever comes first sets: the broker's response packet, the connection's end,
/// the deadline or the waiting task's cancellation. Later answers are ignored.
final class Promise<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, PhoneMQTTError>?
        var continuation: CheckedContinuation<Result<Value, PhoneMQTTError>, Never>?
    }
    private let state = Locked(State())

    init() {}

    /// Sets the answer if none was set yet.
    func resolve(_ result: Result<Value, PhoneMQTTError>) {
        let continuation: CheckedContinuation<Result<Value, PhoneMQTTError>, Never>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
    }

    /// Whether an answer was set.
    var isResolved: Bool { state.withLock { $0.result != nil } }

    /// Waits for the answer, at most until `deadline` (then ``PhoneMQTTError/timedOut(step:after:)``)
    /// and only while the task is not cancelled (then ``PhoneMQTTError/cancelled(step:)``).
    func value(until deadline: ContinuousClock.Instant, _ step: String) async throws(PhoneMQTTError) -> Value {
        let started = ContinuousClock.now
        let timer = Task { [weak self] in
            do {
                try await Task.sleep(until: deadline, clock: .continuous)
            } catch {
                return
            }
            self?.resolve(.failure(.timedOut(step: step, after: started.duration(to: deadline))))
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, PhoneMQTTError>, Never>) in
                let ready = state.withLock { state -> Result<Value, PhoneMQTTError>? in
                    if let result = state.result { return result }
                    state.continuation = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            resolve(.failure(.cancelled(step: step)))
        }
        // Not `result.get()`: it throws untyped in the Swift 5.9 standard library of the iOS 17 SDK.
        switch result {
        case .success(let value): return value
        case .failure(let error): throw error
        }
    }
}
