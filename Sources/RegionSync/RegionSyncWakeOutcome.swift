public import WireProtocol

/// What one wake did, for the app's log.
public struct RegionSyncWakeOutcome: Sendable {
    /// Whether the transport connected.
    public var connected = false
    /// Every `regions` message received, applied or ignored, in order.
    public var applied: [RegionApplyOutcome] = []
    /// Reports the broker accepted.
    public var reportsPublished = 0
    /// The last report published.
    public var lastReport: ClientReport?
    /// What went wrong; a wake that gave up at its deadline says so here.
    public var errors: [RegionSyncError] = []
    /// How long the wake took, on the session's clock.
    public var elapsed: Duration = .zero

    public init() {}
}
