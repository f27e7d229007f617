/// How RegionSync shares iOS's region slots with the app and paces its changes.
public struct RegionSyncConfiguration: Sendable, Hashable {
    /// Prefixed to every region id to make the iOS identifier RegionSync registers; only
    /// identifiers with this prefix are RegionSync's. The app's own regions and other SDKs' never
    /// carry it, so they are never stopped, replaced or counted as BeaconFleet's.
    public var identifierPrefix: String
    /// The regions one app may monitor, all kinds and all managers together (iOS: 20).
    public var slotLimit: Int
    /// At most this many slots for BeaconFleet even when more are free (`nil`: all that are free).
    public var maximumBudget: Int?
    /// The wait between stopping regions and starting others; iOS refuses a start about 0.1 s
    /// after a stop (code 5), so at least 0.1 s.
    public var removeAddGap: Duration
    /// How long to let iOS refuse starts (asynchronously or silently) before reading what it holds.
    public var settleDelay: Duration
    /// Rounds of stop/start when iOS holds fewer regions than asked: the second round gives the
    /// slots iOS did accept to the plan's highest-priority regions.
    public var rounds: Int

    public init(
        identifierPrefix: String = "beaconfleet:", slotLimit: Int = 20, maximumBudget: Int? = nil,
        removeAddGap: Duration = .milliseconds(150), settleDelay: Duration = .milliseconds(500), rounds: Int = 2
    ) {
        self.identifierPrefix = identifierPrefix
        self.slotLimit = slotLimit
        self.maximumBudget = maximumBudget
        self.removeAddGap = max(removeAddGap, .milliseconds(100))
        self.settleDelay = settleDelay
        self.rounds = max(1, rounds)
    }

    /// The iOS identifier for a region id of the `regions` message.
    public func identifier(forRegion id: String) -> String { identifierPrefix + id }

    /// The region id behind an iOS identifier; `nil` when the identifier is not RegionSync's.
    public func region(forIdentifier identifier: String) -> String? {
        guard identifier.hasPrefix(identifierPrefix), identifier.count > identifierPrefix.count else { return nil }
        return String(identifier.dropFirst(identifierPrefix.count))
    }

    /// Whether `identifier` is one RegionSync registered.
    public func owns(_ identifier: String) -> Bool { region(forIdentifier: identifier) != nil }

    /// The slots BeaconFleet may use while iOS holds `held`: the limit less every region that is
    /// not BeaconFleet's, capped by ``maximumBudget``, never negative.
    public func budget(held: [MonitoredRegion]) -> Int {
        let others = held.lazy.filter { !owns($0.identifier) }.count  // count(where:) is not in the iOS 17 SDK's standard library
        let free = max(0, slotLimit - others)
        return maximumBudget.map { min(free, max(0, $0)) } ?? free
    }
}
