public import BeaconKit
public import Foundation

/// `P/v1/clients/{id}/report` (QoS 1): what a phone ranged, the region events iOS gave it, and
/// what it monitors now.
public struct ClientReport: VersionedPayload, Equatable {
    public var v: Int = 1
    /// When the phone made the report.
    public var time: Date?
    /// Beacons ranged since the last report.
    public var ranged: [RangedBeacon]
    /// Region enter / exit events iOS delivered: evidence of range (the beacon detected, or not for
    /// about 30 s), never of being at the beacon.
    public var events: [RegionEvent]
    /// The region ids iOS really holds of BeaconFleet's now (not what was asked): the truth the
    /// coordinator reconciles against. Ids it does not know (the app's own regions) are ignored.
    public var monitored: [String]?
    /// The region slots left for BeaconFleet after the app's own regions and other SDKs (0…20);
    /// 0 is a budget (no slots), not "the default".
    public var budget: Int?
    /// The identity the phone itself advertises, so gateways' sightings of it join this client.
    public var advertising: AdvertisedIdentity?
    /// The `regions` version the phone has applied; lets the coordinator tell a stale `monitored`
    /// list (sent before the latest `regions` arrived) from iOS having dropped a region.
    public var version: UInt64?
    /// What the phone says about itself: its back end, OS, location authorization, Background App
    /// Refresh, Low Power Mode and why the app was launched; from these the coordinator tells
    /// whether iOS can wake it at all (``PhoneStatus/wakeability``).
    public var phone: PhoneStatus?

    public init(
        time: Date? = nil, ranged: [RangedBeacon] = [], events: [RegionEvent] = [], monitored: [String]? = nil, budget: Int? = nil,
        advertising: AdvertisedIdentity? = nil, version: UInt64? = nil, phone: PhoneStatus? = nil
    ) {
        self.time = time
        self.ranged = ranged
        self.events = events
        self.monitored = monitored
        self.budget = budget
        self.advertising = advertising
        self.version = version
        self.phone = phone
    }

    enum CodingKeys: String, CodingKey { case v, time, ranged, events, monitored, budget, advertising, version, phone }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        v = try c.decode(Int.self, forKey: .v)
        time = try c.decodeIfPresent(Date.self, forKey: .time)
        ranged = try c.decodeIfPresent([RangedBeacon].self, forKey: .ranged) ?? []
        events = try c.decodeIfPresent([RegionEvent].self, forKey: .events) ?? []
        monitored = try c.decodeIfPresent([String].self, forKey: .monitored)
        budget = try c.decodeIfPresent(Int.self, forKey: .budget)
        advertising = try c.decodeIfPresent(AdvertisedIdentity.self, forKey: .advertising)
        version = try c.decodeIfPresent(UInt64.self, forKey: .version)
        phone = try c.decodeIfPresent(PhoneStatus.self, forKey: .phone)
    }
}

/// The iBeacon identity a phone advertises while its app is in the foreground, as its report
/// declares it (`advertising`): UUID text with major and minor.
public struct AdvertisedIdentity: Codable, Sendable, Hashable {
    public var uuid: String
    public var major: UInt16
    public var minor: UInt16
    public init(uuid: String, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// The same identity, packed; `nil` when `uuid` is not a UUID.
    public var identity: BeaconIdentity? { BeaconIdentity(uuid: uuid, major: major, minor: minor) }
}

/// One beacon as CoreLocation ranged it.
public struct RangedBeacon: Codable, Sendable, Equatable {
    public var uuid: String
    public var major: UInt16
    public var minor: UInt16
    /// dBm; 0 means CoreLocation could not measure it.
    public var rssi: Int
    /// CoreLocation's accuracy estimate in metres; negative when unknown.
    public var accuracy: Double?
    /// `immediate`, `near`, `far` or `unknown`.
    public var proximity: String?

    public init(uuid: String, major: UInt16, minor: UInt16, rssi: Int, accuracy: Double? = nil, proximity: String? = nil) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.rssi = rssi
        self.accuracy = accuracy
        self.proximity = proximity
    }
}

/// A region event iOS delivered: `enter` when it first detected the region's beacon (at the
/// beacon's detection range, not at a boundary), `exit` about 30 s after it last detected it.
public struct RegionEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case enter, exit }
    public var type: Kind
    /// The region's topology id.
    public var region: String
    public var time: Date?

    public init(type: Kind, region: String, time: Date? = nil) {
        self.type = type
        self.region = region
        self.time = time
    }
}
