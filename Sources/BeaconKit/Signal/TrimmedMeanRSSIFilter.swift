/// The mean RSSI over a sliding time window after dropping the strongest and weakest samples:
/// the running-average filter of the AltBeacon library (20 s window, 10 % trimmed from each end).
///
/// Samples older than ``window`` before the latest one fall out. Memory is bounded by
/// ``capacity``: past it the oldest samples are dropped even if they are still in the window.
public struct TrimmedMeanRSSIFilter: Sendable {
    /// The window, in microseconds (default 20 s).
    public let window: Int64
    /// The share of samples dropped at each end, 0 ≤ x < 0.5 (default 0.1).
    public let trimFraction: Double
    /// The most samples kept.
    public let capacity: Int

    private var times: [Int64] = []
    private var values: [Int8] = []
    private var start = 0
    private var scratch: [Int8] = []

    /// A filter over `windowSeconds` (default 20; clamped to 0 … 10⁹ s) trimming `trimFraction`
    /// at each end (clamped to 0 … 0.49).
    public init(windowSeconds: Double = 20, trimFraction: Double = 0.1, capacity: Int = 1024) {
        let seconds = windowSeconds.isNaN ? 20 : min(max(windowSeconds, 0), 1e9)
        self.window = Int64(seconds * 1_000_000)
        self.trimFraction = trimFraction.isNaN ? 0.1 : min(max(trimFraction, 0), 0.49)
        self.capacity = max(capacity, 1)
    }

    /// How many samples are in the window.
    public var count: Int { times.count - start }

    /// Adds a sample heard at `timestampMicroseconds`; samples must come in time order (an
    /// earlier time is taken as the latest one).
    public mutating func add(_ rssi: Int8, at timestampMicroseconds: Int64) {
        if count >= capacity { start += 1 }
        times.append(timestampMicroseconds)
        values.append(rssi)
        expire(before: timestampMicroseconds &- window)
    }

    /// Drops samples older than `window` before `now` (call it when time passes without samples).
    public mutating func expire(now: Int64) {
        expire(before: now &- window)
    }

    /// The trimmed mean in dBm, or `nil` when the window is empty.
    public mutating func value() -> Double? {
        let n = count
        guard n > 0 else { return nil }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: values[start...])
        scratch.sort()
        let drop = Int(Double(n) * trimFraction)
        var sum = 0
        for value in scratch[drop..<(n - drop)] { sum += Int(value) }
        return Double(sum) / Double(n - 2 * drop)
    }

    private mutating func expire(before limit: Int64) {
        while start < times.count, times[start] < limit { start += 1 }
        // Compact once the dead prefix is as large as the live part.
        if start > 32, start * 2 >= times.count {
            times.removeFirst(start)
            values.removeFirst(start)
            start = 0
        }
    }
}
