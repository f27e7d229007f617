/// Running totals of what the coordinator took in and put out; exported as metrics.
public struct IngestCounters: Sendable, Equatable {
    /// Messages received, by kind.
    public var sightingsBatches: UInt64 = 0
    public var sightings: UInt64 = 0
    public var reports: UInt64 = 0
    public var gatewayStatuses: UInt64 = 0
    /// Messages rejected: a topic outside the contract, a payload that does not decode or validate,
    /// a payload over the size limit.
    public var invalidTopics: UInt64 = 0
    public var invalidPayloads: UInt64 = 0
    public var oversizedPayloads: UInt64 = 0
    /// Batches that repeated or came after a later one of the same gateway (skipped), and gaps in `seq`.
    public var duplicateBatches: UInt64 = 0
    public var missedBatches: UInt64 = 0
    /// Times a gateway's duplicate check started over: a batch with a new spool epoch, or (for a
    /// gateway without epochs) an `online` status after an `offline` one.
    public var sequenceResets: UInt64 = 0
    /// Batches from gateways the topology does not place (their sightings cannot locate anyone).
    public var unknownGatewayBatches: UInt64 = 0
    /// Sightings of the venue's own region beacons (not clients).
    public var regionBeaconSightings: UInt64 = 0
    /// Sightings not tracked as clients, by gateway id: region beacons, the venue's other beacons
    /// and identities the venue's client policy does not admit.
    public var notAdmitted: [String: AdmissionCounts] = [:]
    /// Phones known now whose last report said iOS cannot wake them (a count, not a total).
    public var unwakeablePhones = 0
    /// Report entries naming a region or beacon the topology does not know (skipped one by one).
    public var unknownReferences: UInt64 = 0
    /// What was published.
    public var regionsPublished: UInt64 = 0
    public var eventsPublished: UInt64 = 0
    /// Position estimates made (a client's evidence folded into its filter state).
    public var estimates: UInt64 = 0
    public var plans: UInt64 = 0
    public var reconciliations: UInt64 = 0
    public var departures: UInt64 = 0
    public var expired: UInt64 = 0

    public init() {}

    /// All rejected messages.
    public var invalid: UInt64 { invalidTopics + invalidPayloads + oversizedPayloads }
}
