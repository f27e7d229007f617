/// What applying one `regions` message did.
public struct RegionApplyOutcome: Sendable, Hashable {
    /// How the message was applied.
    public enum Path: String, Sendable, Hashable {
        /// A re-delivery of a version already applied (or older): nothing was called.
        case ignored
        /// The message's `add` / `remove`: it follows the applied version and iOS held the applied set.
        case diff
        /// Converged to the message's whole `regions` set.
        case full
    }

    /// A region RegionSync could not monitor, or not stop.
    public enum Failure: Sendable, Hashable {
        /// Asked to start, not held afterwards (refused asynchronously or silently).
        case refused(String)
        /// Asked to stop, still held afterwards.
        case notStopped(String)
        /// The message names a UUID that is not one.
        case invalidUUID(String)
        /// The state could not be stored.
        case store(String)
    }

    /// The message's version.
    public var version: UInt64
    /// The version applied after this message (the message's when ``completed``, else the previous).
    public var appliedVersion: UInt64?
    public var path: Path
    /// BeaconFleet's slots: the slot limit less the app's own regions (see
    /// ``RegionSyncConfiguration/budget(held:)``); `nil` when ``path`` is `.ignored` (nothing was read).
    public var budget: Int?
    /// The region ids iOS holds afterwards (plan order first); empty when ``path`` is `.ignored`.
    public var held: [String]
    /// The plan's regions iOS does not hold, in the plan's priority order: past the budget, refused, or invalid.
    public var leftOut: [String]
    /// Region ids started and stopped, in call order.
    public var started: [String]
    public var stopped: [String]
    public var failures: [Failure]
    /// False when the deadline (or cancellation) cut the apply short; the version is then not recorded.
    public var completed: Bool

    public init(
        version: UInt64, appliedVersion: UInt64?, path: Path, budget: Int?, held: [String] = [], leftOut: [String] = [],
        started: [String] = [], stopped: [String] = [], failures: [Failure] = [], completed: Bool = true
    ) {
        self.version = version
        self.appliedVersion = appliedVersion
        self.path = path
        self.budget = budget
        self.held = held
        self.leftOut = leftOut
        self.started = started
        self.stopped = stopped
        self.failures = failures
        self.completed = completed
    }
}
