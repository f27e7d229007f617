/// The operation did not finish within the time allowed.
public struct TimeoutError: Error, CustomStringConvertible {
    /// What was being waited for.
    public var what: String
    /// How long was allowed.
    public var limit: Duration
    public var description: String { "timed out after \(limit) waiting for \(what)" }
}

/// Runs `operation`, failing with ``TimeoutError`` if it takes longer than `limit`. For tests only: it
/// bounds waits so a broken test fails instead of hanging; it never asserts on speed.
public func withTimeout<Result: Sendable>(
    _ limit: Duration, _ what: String = "an operation",
    _ operation: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimeoutError(what: what, limit: limit)
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}

/// Takes elements from `sequence` until `count` were collected or `limit` passed (then throws ``TimeoutError``).
public func collect<S: AsyncSequence & Sendable>(
    _ count: Int, from sequence: S, within limit: Duration = .seconds(10)
) async throws -> [S.Element] where S.Element: Sendable {
    try await withTimeout(limit, "\(count) elements") {
        var result: [S.Element] = []
        guard count > 0 else { return result }
        for try await element in sequence {
            result.append(element)
            if result.count == count { break }
        }
        return result
    }
}
