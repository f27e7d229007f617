import BeaconKit
import Planner
import Topology
import WireProtocol

/// One observation kept for a client, compactly: which anchor (a gateway that heard it, or a
/// region's beacon the phone ranged), how strong, when (milliseconds since 1970).
struct CompactObservation: Sendable {
    var anchor: Anchor
    var rssi: Float
    /// Measured power at 1 m.
    var txPower: MeasuredPower
    /// Whether an estimate already used it.
    var consumed: Bool
    /// Advertisements averaged into `rssi`.
    var count: UInt16
    var time: Int64

    init(anchor: Anchor, rssi: Float, txPower: MeasuredPower = .unknown, count: UInt16 = 1, time: Int64) {
        self.anchor = anchor
        self.rssi = rssi
        self.txPower = txPower
        self.consumed = false
        self.count = count
        self.time = time
    }
}

/// Everything the coordinator keeps about one client (a few hundred bytes; see the memory benchmark).
struct ClientRecord: Sendable {
    // What every sighting reads and writes comes first, so it shares one cache line: with tens of
    // thousands of clients the records do not stay in cache, and ingest waits on these lines.
    /// Recent observations (at most ``CoordinatorEngine/Configuration/maximumObservations``).
    var observations: [CompactObservation] = []
    /// Milliseconds since 1970 of the last evidence, and of the last `lastSeen` written to the store.
    var lastSeen: Int64 = 0
    var persistedSeen: Int64 = 0
    /// Gateways (healthy, online) whose recent windows contained the client.
    var coverCount: UInt8 = 0
    /// Whether the client is currently believed present (false after an absence exit).
    var present = true
    var forcePlan = false
    /// Whether `lastSeen` is to be written to the store.
    var needsPersist = false
    /// Regions the client is inside (from the phone's events, or from its estimated location);
    /// read when it leaves. A phone's are regions whose beacon iOS detects (enter without exit)
    /// and that it still monitors.
    var inside: [Int32] = []
    /// A phone's region events not yet folded into its estimate, and the newest one's time.
    var regionEvidence: [RegionEvidence] = []
    var regionEvidenceTime = Timestamp.never
    /// The regions whose beacons a phone ranged lately, each with the newest time (milliseconds
    /// since 1970, the report's clock) and whether iOS told the app it is inside: all of them, not
    /// only the strongest the estimate keeps.
    var heard: [HeardRegion] = []
    /// How recently this phone's iOS must have detected a beacon for a region added now to start
    /// inside, as its reports show it (see ``InRangeWindow``).
    var inRange = InRangeWindow()

    /// The client's topic identifier.
    var id: String
    /// The last published `regions` version, and whether another member may have published since
    /// (a partition gained, another member's set adopted).
    var version = RegionsVersion()
    /// The last published set, region indices in slot order.
    var regions: [Int32] = []
    /// Regions of ``regions`` whose iOS state this engine may have missed (``PlanRequest/stateUnknown``):
    /// every region of the set when its member was cut off from the broker (an exit, or an exit
    /// and a new enter, may have gone unseen), and those not known inside of a set adopted since.
    /// A region leaves it with its next enter or exit, or when it leaves the set.
    var stateUnknown: [Int32] = []
    /// This engine's member was cut off from the broker since this engine last published a set
    /// for the client (``CoordinatorEngine/missedReports()``), or first knew the client when it
    /// already had sets (``CoordinatorEngine/adoptPublished(client:message:now:)``,
    /// ``CoordinatorEngine/noteReport(client:report:now:)``): sets adopted meanwhile add to ``stateUnknown``.
    var missedReports = false
    /// The current estimate (the position estimator's state: its time is the evidence's), its
    /// confidence radius in metres, and when (milliseconds since 1970, the coordinator's clock) it
    /// was last made.
    var location: PositionState?
    var confidence: Double = 0
    /// The estimate room presence goes by (``CoordinatorVenue/presenceEstimator``): the same
    /// evidence as ``location``, folded with the client's own radio offset learned; `nil` where the
    /// venue tracks no presence or does not learn offsets (presence then goes by ``location``).
    var presenceLocation: PositionState?
    var estimatedAt = Timestamp.never
    /// Where the client was when last planned, and when the last `moved` event was sent.
    var plannedAt: VenuePoint?
    var movedAt: VenuePoint?
    /// The identity the phone advertises (or, for a tag, the identity it was heard with).
    var beacon: BeaconIdentity?
    /// The budget the phone stated in its report (``SlotLimit/unstated``: none, the coordinator's applies).
    var budget = SlotLimit.unstated
    /// The most regions the phone was seen to hold when it held fewer than planned although its
    /// budget allowed them (iOS refused or ignored the rest), and since when (milliseconds since
    /// 1970); ``SlotLimit/unstated``: no such limit. Plans respect it, so a phone that cannot hold the set
    /// is not sent it again and again (see ``CoordinatorEngine/reconcile(_:held:now:)``).
    var capacity = SlotLimit.unstated
    var capacitySince: Int64 = 0
    /// The set the phone held (sorted) that the current version was reconciled from: the same
    /// discrepancy reported again is not answered again (the answer cannot change).
    var answered: [Int32]?
    /// Whether a phone reports for this client (otherwise it is a tag heard by gateways).
    var isPhone = false
    var reconcileFrom: [Int32]?
    /// Ids the client monitors that the topology no longer has: removed by the next publish.
    var vanished: [String] = []
    /// Why the next publish happens, when not simply `moved`.
    var reason: PlanReason?
    /// The room and level presence shows (``RoomFilter``): what `position.room`, room and level
    /// events and Home Assistant say.
    var presence = RoomPresence()
    /// What the phone last said about itself (its report's `phone`); `nil` until it says.
    var phone: PhoneStatus?

    /// Whether iOS can wake the phone, by what it last said (never said: unknown).
    var wakeability: Wakeability { phone?.wakeability ?? .unknown }

    init(id: String) {
        self.id = id
    }
}

/// Why a `regions` message was published (the wire's `reason` field).
public enum PlanReason: String, Sendable {
    case initial, moved, reconcile, topology, budget, restart
}

extension ClientRecord {
    /// The regions of ``regions`` not known inside join ``stateUnknown``; with `inside`, those known
    /// inside too (what the phone reported since may have left them).
    mutating func markStateUnknown(inside includingInside: Bool = false) {
        for region in regions where (includingInside || !inside.contains(region)) && !stateUnknown.contains(region) {
            stateUnknown.append(region)
        }
    }

    /// An enter or exit for `region` arrived: its state is known again.
    mutating func noteStateKnown(_ region: Int32) {
        if !stateUnknown.isEmpty { stateUnknown.removeAll { $0 == region } }
    }
}

/// A region whose beacon a phone ranged lately (``ClientRecord/heard``).
struct HeardRegion: Sendable, Equatable {
    var region: Int32
    /// When it was last ranged (milliseconds since 1970, the report's clock).
    var time: Int64
    /// iOS told the app it is inside (an enter, or the answer to `requestState`), or monitored it
    /// while the phone ranged it, since the phone started hearing it: this approach is covered, and
    /// the slot can go to a region not yet told.
    var told: Bool
}
