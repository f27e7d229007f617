public import Logging

/// Logs rejected input at most once per source per interval (default a minute), saying how many
/// were suppressed since, so a misbehaving gateway or phone cannot flood the log.
public struct RateLimitedLog: Sendable {
    public var logger: Logger
    public let interval: Duration
    private var last: [String: (ContinuousClock.Instant, Int)] = [:]

    public init(logger: Logger, interval: Duration = .seconds(60)) {
        self.logger = logger
        self.interval = interval
    }

    /// Logs `message` for `source` unless one was logged for it within the interval.
    public mutating func warning(_ message: @autoclosure () -> String, source: String, now: ContinuousClock.Instant = .now) {
        if let (at, suppressed) = last[source], now - at < interval {
            last[source] = (at, suppressed + 1)
            return
        }
        let suppressed = last[source]?.1 ?? 0
        if last.count > 10_000 { last.removeAll() }  // bounded memory under a storm of distinct sources
        last[source] = (now, 0)
        logger.warning("\(message())\(suppressed > 0 ? " (\(suppressed) more from \(source) suppressed)" : "")")
    }
}
