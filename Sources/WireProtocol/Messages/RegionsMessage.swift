public import BeaconKit
public import Foundation

/// `P/v1/clients/{id}/regions` (retained, QoS 1): the set of regions a phone should monitor.
///
/// A phone applies `remove` then `add` when `version` is the one after the version it has, and
/// replaces its whole set from `regions` otherwise, so a lost message costs nothing.
public struct RegionsMessage: VersionedPayload, Equatable {
    public var v: Int = 1
    /// Per client, +1 for every change; never goes back or repeats. A client record the coordinator
    /// starts without its history (new, expired, or after a restart without its state) starts at
    /// the clock in milliseconds since 1970, above any version an earlier record published; a
    /// phone takes any version other than its applied one + 1 as "converge to the whole set".
    public var version: UInt64
    /// The slots the set was planned for: the coordinator's budget, capped by the phone's stated
    /// `budget` and by what it was seen able to hold.
    public var budget: Int
    /// The whole set, in the planner's slot order (pinned first); a phone with fewer free slots keeps its head.
    public var regions: [RegionRef]
    /// Regions to start monitoring (full identities) and ids to stop monitoring.
    public var add: [RegionRef]
    public var remove: [String]
    /// Where the coordinator believes the client is.
    public var position: Position?
    /// Why this set was published: `initial`, `moved`, `reconcile`, `topology`, `budget`, `restart`.
    public var reason: String
    /// How far, in metres of walking, the client may go before the set must be re-planned.
    public var validFor: Double?
    public var time: Date?
    /// The partitioned coordinator (member id) that published it; absent from a lone coordinator.
    /// Phones ignore it; members read it to tell their own echo from another member's set (the fence).
    public var coordinator: String?
    /// The fencing token of the partitioned coordinator that published it: the etcd revision of
    /// its partition's owner key, higher for every later owner; absent from a lone coordinator.
    /// Phones ignore it; a member that sees a token above its own for its partition stops serving it.
    public var token: UInt64?
    /// The partition `token` is for (`venue` or `venue:L1+L2`, as in the member status), which is
    /// the partition of the phone's report and not always that of `position`'s level (a phone on a
    /// stair). Absent from a lone coordinator; phones ignore it.
    public var partition: String?

    public init(
        version: UInt64, budget: Int, regions: [RegionRef], add: [RegionRef], remove: [String], position: Position?, reason: String,
        validFor: Double? = nil, time: Date? = nil
    ) {
        self.version = version
        self.budget = budget
        self.regions = regions
        self.add = add
        self.remove = remove
        self.position = position
        self.reason = reason
        self.validFor = validFor
        self.time = time
    }
}

/// A region as a phone registers it with CoreLocation: its stable topology id and its beacon
/// identity (major and minor absent for wildcard regions).
public struct RegionRef: Codable, Sendable, Hashable {
    public var id: String
    public var uuid: String
    public var major: UInt16?
    public var minor: UInt16?

    public init(id: String, uuid: String, major: UInt16? = nil, minor: UInt16? = nil) {
        self.id = id
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }
}

/// A position on the venue: metres on a level, with a confidence radius.
public struct Position: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var level: String
    /// Radius in metres within which the client probably is.
    public var confidence: Double?
    /// The name of the room (the venue's `areas.csv`) the position is in; absent when the venue
    /// has no rooms or the position is in none.
    public var room: String?

    public init(x: Double, y: Double, level: String, confidence: Double? = nil, room: String? = nil) {
        self.x = x
        self.y = y
        self.level = level
        self.confidence = confidence
        self.room = room
    }
}

extension RegionIdentity {
    /// The identity a `regions` message names for `region`; `nil` when its `uuid` is not a UUID.
    public init?(_ region: RegionRef) {
        guard let uuid = BeaconUUID(region.uuid) else { return nil }
        self.init(uuid: uuid, major: region.major, minor: region.minor)
    }
}
