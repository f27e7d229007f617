public import Foundation

/// `P/v1/gateways/{gw}/status` (retained, QoS 1): an agent's presence, also its last will.
public struct GatewayStatus: VersionedPayload, Equatable {
    /// Whether the agent is up.
    public enum State: String, Codable, Sendable { case online, offline }

    public var v: Int = 1
    public var state: State
    /// The agent's software version.
    public var version: String?
    /// The source it reads: `hci0`, or `replay:FILE`.
    public var adapter: String?
    /// When the agent started.
    public var started: Date?
    /// When this status was written.
    public var time: Date?
    /// Live counters, refreshed periodically while online.
    public var counters: Counters?
    /// The broker and MQTT version of the current connection (absent before the first one).
    public var mqtt: BrokerConnection?
    /// The coordinator's configuration the agent runs (absent until it received one).
    public var configuration: AppliedConfiguration?

    /// Which ``GatewayConfiguration`` an agent applied, and what of it its own settings override.
    public struct AppliedConfiguration: Codable, Sendable, Equatable {
        /// The ``GatewayConfiguration/revision`` applied.
        public var revision: String
        /// When it was applied.
        public var applied: Date?
        /// Settings of it that the agent's file, environment or flags override (`window`, `min-rssi`),
        /// or `all` when the agent ignores the coordinator's configuration (`remote-config = false`).
        public var overridden: [String]?

        public init(revision: String, applied: Date? = nil, overridden: [String]? = nil) {
            self.revision = revision
            self.applied = applied
            self.overridden = overridden
        }
    }

    /// An agent's running counters.
    public struct Counters: Codable, Sendable, Equatable {
        /// Advertising reports per second over the last refresh interval.
        public var reportsPerSecond: Double
        /// Advertising reports read since start.
        public var reports: UInt64
        /// Malformed frames skipped since start.
        public var malformed: UInt64
        /// Batches dropped because the spool was full.
        public var dropped: UInt64
        /// Batches waiting in the spool now.
        public var spooled: UInt64
        /// Bytes in the spool now, and its bound.
        public var spoolBytes: UInt64
        public var spoolLimitBytes: UInt64
        /// The broker connection as the agent sees it (`connected`, `connecting`, `disconnected`).
        public var broker: String
        /// The last sequence number published.
        public var lastSeq: UInt64

        public init(
            reportsPerSecond: Double, reports: UInt64, malformed: UInt64, dropped: UInt64, spooled: UInt64, spoolBytes: UInt64,
            spoolLimitBytes: UInt64, broker: String, lastSeq: UInt64
        ) {
            self.reportsPerSecond = reportsPerSecond
            self.reports = reports
            self.malformed = malformed
            self.dropped = dropped
            self.spooled = spooled
            self.spoolBytes = spoolBytes
            self.spoolLimitBytes = spoolLimitBytes
            self.broker = broker
            self.lastSeq = lastSeq
        }
    }

    public init(
        state: State, version: String? = nil, adapter: String? = nil, started: Date? = nil, time: Date? = nil, counters: Counters? = nil
    ) {
        self.state = state
        self.version = version
        self.adapter = adapter
        self.started = started
        self.time = time
        self.counters = counters
    }
}
