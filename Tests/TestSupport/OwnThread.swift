import Foundation

/// Runs blocking I/O (a socket read with a timeout, say) on a new thread of its own and waits for
/// it without holding a thread of the cooperative pool. A test that blocked a pool thread on a
/// socket whose answer an in-process server computes on that same pool (2 threads in CI) could
/// wait out its whole timeout: the server had no thread left to answer with.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = "blocking test I/O"
        thread.start()
    }
}
