import Foundation

/// Milliseconds since 1970 (`Int64`) are the one time unit inside the engine and the core; these
/// convert at the edges: the wire's `Date`s and the position estimator's clock (seconds since the
/// reference date, ``Planner/PositionState/time``).
public enum Milliseconds {
    /// The wall clock now.
    public static func now() -> Int64 { of(Date()) }

    /// A wire `Date` (a report's or an event's `time`), truncated to the millisecond.
    @inline(__always) static func of(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// A wire `Date` rounded to the nearest millisecond (a `regions` message's `time`, which the
    /// coordinator wrote from milliseconds).
    @inline(__always) static func rounding(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// `milliseconds` as a `Date` (the wire's, the planner's clock).
    @inline(__always) static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// `milliseconds` on the estimator's clock.
    @inline(__always) static func stateTime(_ milliseconds: Int64) -> Double { date(milliseconds).timeIntervalSinceReferenceDate }

    /// An estimator state's time in milliseconds (rounded).
    @inline(__always) static func of(stateTime: Double) -> Int64 {
        Int64((Date(timeIntervalSinceReferenceDate: stateTime).timeIntervalSince1970 * 1000).rounded())
    }
}
