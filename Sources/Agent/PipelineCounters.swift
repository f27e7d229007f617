import Synchronization

/// What the pipeline has counted since the agent started.
public struct PipelineCounts: Sendable, Equatable {
    /// HCI packets read from the source.
    public var packets: UInt64 = 0
    /// Advertising reports decoded (legacy and extended).
    public var reports: UInt64 = 0
    /// Reports that carried a beacon (any format).
    public var beacons: UInt64 = 0
    /// Beacons kept by the filter and aggregated.
    public var aggregated: UInt64 = 0
    /// Beacons the filter dropped.
    public var filtered: UInt64 = 0
    /// Malformed HCI events and advertising data skipped.
    public var malformed: UInt64 = 0
    /// Windows closed (batches produced).
    public var windows: UInt64 = 0

    public init() {}
}

/// The pipeline's counts, shared between its thread and the status reporter.
///
/// The pipeline keeps its own copy and publishes it here now and then (every window and every idle
/// tick), so the hot path takes no lock.
public final class PipelineCounters: Sendable {
    private let counts = Mutex(PipelineCounts())

    public init() {}

    /// The latest published counts.
    public var snapshot: PipelineCounts {
        counts.withLock { $0 }
    }

    func publish(_ new: PipelineCounts) {
        counts.withLock { $0 = new }
    }
}

/// A flag one thread sets and another polls.
final class StopFlag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool {
        value.withLock { $0 }
    }

    func set() {
        value.withLock { $0 = true }
    }
}
