/// Exact counters of what an ``AdvertisementDecoder`` saw. Every malformed thing is counted once,
/// at the level it was found: a bad HCI event in ``malformedEvents``, a bad AD structure or
/// beacon payload inside a good report in ``malformedAdvertisingData``.
public struct DecodeStatistics: Sendable, Hashable {
    /// HCI packets given to the decoder (of any type).
    public var packets: Int = 0
    /// HCI event packets among them.
    public var events: Int = 0
    /// LE Advertising Report and LE Extended Advertising Report events.
    public var advertisingEvents: Int = 0
    /// Reports from LE Advertising Report events (0x3E/0x02).
    public var legacyReports: Int = 0
    /// Reports from LE Extended Advertising Report events (0x3E/0x0D).
    public var extendedReports: Int = 0
    /// Beacons found, by format.
    public var beacons = BeaconCounts()
    /// HCI events that were truncated or inconsistent (their reports before the damage count).
    public var malformedEvents: Int = 0
    /// Reports whose advertising data had a bad AD length or a truncated beacon payload. (An
    /// extended report whose data status says the data is incomplete may end inside an AD
    /// structure without counting here.)
    public var malformedAdvertisingData: Int = 0

    public init() {}

    /// All advertising reports, legacy and extended.
    public var advertisingReports: Int { legacyReports + extendedReports }

    /// Everything malformed at the HCI and advertising-data levels.
    public var malformed: Int { malformedEvents + malformedAdvertisingData }

    /// Adds `other`'s counts to these (for totals over several captures).
    public mutating func add(_ other: DecodeStatistics) {
        packets += other.packets
        events += other.events
        advertisingEvents += other.advertisingEvents
        legacyReports += other.legacyReports
        extendedReports += other.extendedReports
        beacons.add(other.beacons)
        malformedEvents += other.malformedEvents
        malformedAdvertisingData += other.malformedAdvertisingData
    }
}

/// Beacons counted by format; a fixed struct so that counting never allocates.
public struct BeaconCounts: Sendable, Hashable {
    public var iBeacon = 0
    public var altBeacon = 0
    public var eddystoneUID = 0
    public var eddystoneURL = 0
    public var eddystoneTLM = 0
    public var eddystoneUnknown = 0

    public init() {}

    /// The count for `format`.
    public subscript(format: BeaconFormat) -> Int {
        get {
            switch format {
            case .iBeacon: iBeacon
            case .altBeacon: altBeacon
            case .eddystoneUID: eddystoneUID
            case .eddystoneURL: eddystoneURL
            case .eddystoneTLM: eddystoneTLM
            case .eddystoneUnknown: eddystoneUnknown
            }
        }
        set {
            switch format {
            case .iBeacon: iBeacon = newValue
            case .altBeacon: altBeacon = newValue
            case .eddystoneUID: eddystoneUID = newValue
            case .eddystoneURL: eddystoneURL = newValue
            case .eddystoneTLM: eddystoneTLM = newValue
            case .eddystoneUnknown: eddystoneUnknown = newValue
            }
        }
    }

    /// All beacons.
    public var total: Int { iBeacon + altBeacon + eddystoneUID + eddystoneURL + eddystoneTLM + eddystoneUnknown }

    mutating func add(_ other: BeaconCounts) {
        iBeacon += other.iBeacon
        altBeacon += other.altBeacon
        eddystoneUID += other.eddystoneUID
        eddystoneURL += other.eddystoneURL
        eddystoneTLM += other.eddystoneTLM
        eddystoneUnknown += other.eddystoneUnknown
    }
}
