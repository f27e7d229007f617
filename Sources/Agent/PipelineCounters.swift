public import BeaconKit
import Synchronization

/// What the pipeline has counted since the agent started.
public struct PipelineCounts: Sendable, Equatable {
    /// The decoder's exact statistics: HCI packets, advertising reports, beacons by format, and
    /// the malformed events and advertising data it skipped.
    public var decoded = DecodeStatistics()
    /// Records the source itself found malformed (a capture's unreadable records), before the decoder.
    public var malformedPackets: UInt64 = 0
    /// Beacons kept by the filter and aggregated.
    public var aggregated: UInt64 = 0
    /// Beacons the filter dropped.
    public var filtered: UInt64 = 0
    /// Windows closed (batches produced).
    public var windows: UInt64 = 0

    public init() {}

    /// HCI packets read from the source.
    public var packets: UInt64 { UInt64(decoded.packets) }
    /// Advertising reports decoded (legacy and extended).
    public var reports: UInt64 { UInt64(decoded.advertisingReports) }
    /// Reports that carried a beacon (any format).
    public var beacons: UInt64 { UInt64(decoded.beacons.total) }
    /// Malformed HCI events and advertising data skipped, and malformed source records.
    public var malformed: UInt64 { UInt64(decoded.malformed) + malformedPackets }
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
