import Foundation

/// A clock whose time moves only when someone sleeps on it or calls ``advance(by:)``: a sleep
/// returns at once with the clock set to its deadline. Tests of code that waits (the applier's
/// 0.1 s gap, its settle) run without real sleeping and give the same result on every run.
///
/// Meant for one task sleeping at a time; concurrent sleepers each jump the clock forward.
public final class VirtualClock: Clock, @unchecked Sendable {
    /// A moment on a ``VirtualClock``: the time since the clock's start.
    public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
        /// Time since the clock's zero.
        public var offset: Duration

        public init(offset: Duration) {
            self.offset = offset
        }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
        public var description: String { "t+\(offset)" }
    }

    private let lock = NSLock()
    private var current: Instant
    private var slept: [Duration] = []

    /// A clock at `start` (default: zero).
    public init(start: Instant = Instant(offset: .zero)) {
        current = start
    }

    public var now: Instant { lock.withLock { current } }
    public var minimumResolution: Duration { .zero }

    /// Moves the clock to `deadline` (if later) and returns; throws when the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        lock.withLock {
            slept.append(current.duration(to: deadline))
            if current < deadline { current = deadline }
        }
        await Task.yield()
    }

    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        lock.withLock { current = current.advanced(by: duration) }
    }

    /// Moves the clock to `instant` (if later).
    public func advance(to instant: Instant) {
        lock.withLock { if current < instant { current = instant } }
    }

    /// Every sleep so far, as the time it asked for.
    public var sleeps: [Duration] { lock.withLock { slept } }
}
