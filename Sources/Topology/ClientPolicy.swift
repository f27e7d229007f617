public import BeaconKit

/// Which identities the venue's gateways hear are mobile clients (tags, the phones' advertised
/// identities) and which are the venue's own beacons, from `clients.csv` (see `topology/README.md`).
///
/// The coordinator asks it once per identity it has not tracked yet. Region beacons (the exact
/// identities of `regions.csv`) are never clients and are settled before the policy is asked.
/// Otherwise, in this order:
/// 1. a `venue` rule that matches: the venue's own beacon (its Eddystone TLM or URL frames, its
///    Eddystone-UID, a spare beacon not in `regions.csv`): not a client;
/// 2. a `client` rule that matches: a client;
/// 3. an iBeacon or AltBeacon identity with the UUID of any region: the venue's own;
/// 4. anything else (neighbours' beacons, other people's devices): not a client, ``Verdict/unlisted``.
///
/// A venue without `clients.csv` has no policy (`Topology.clientPolicy` is nil): every identity
/// that is not a region beacon is a client, as before the policy existed.
public struct ClientPolicy: Sendable, Equatable {
    /// What a rule says of the identities it matches.
    public enum Role: String, Sendable, Equatable {
        /// A mobile client: a tag, or what a phone advertises.
        case client
        /// One of the venue's own beacons, in whatever frame format.
        case venue
    }

    /// What a rule matches.
    public enum Match: Sendable, Equatable {
        /// iBeacon and AltBeacon identities with this UUID and a major in the range.
        case uuid(BeaconUUID, majors: ClosedRange<UInt16>)
        /// Eddystone-UID identities in this namespace (any instance).
        case namespace(EddystoneNamespace)
        /// Any frame (iBeacon, AltBeacon, Eddystone UID, URL, TLM) from an advertiser address in the range.
        case addresses(ClosedRange<UInt64>)
    }

    /// One line of `clients.csv`.
    public struct Rule: Sendable, Equatable {
        public var role: Role
        public var match: Match
        /// What people call the clients it admits (`name`; Home Assistant's device name), when given.
        public var name: String?
        /// Where it was written.
        public var source: SourceLocation

        /// Whether the rule matches a beacon heard with identity `key` from `address`.
        @inline(__always)
        func matches(_ key: BeaconIdentity, address: UInt64) -> Bool {
            switch match {
            case .uuid(let uuid, let majors):
                return key.kind == .uuidMajorMinor && key.high == uuid.high && key.low == uuid.low && majors.contains(key.major)
            case .namespace(let namespace):
                return key.kind == .eddystoneUID && key.namespace == namespace
            case .addresses(let range):
                return range.contains(address)
            }
        }
    }

    /// Why an identity is or is not a client.
    public enum Verdict: Int, Sendable, Equatable, CaseIterable {
        /// Admitted by a `client` rule.
        case client = 0
        /// The venue's own beacon (a `venue` rule, or a region's UUID).
        case venue = 1
        /// Matched by no rule.
        case unlisted = 2

        /// The label `/metrics` uses.
        public var name: String {
            switch self {
            case .client: "client"
            case .venue: "venue"
            case .unlisted: "unlisted"
            }
        }
    }

    /// The rules in file order.
    public let rules: [Rule]
    /// The UUIDs of the venue's regions (rule 3).
    public let venueUUIDs: [BeaconUUID]

    public init(rules: [Rule], venueUUIDs: [BeaconUUID]) {
        self.rules = rules
        var unique: [BeaconUUID] = []
        for uuid in venueUUIDs where !unique.contains(uuid) { unique.append(uuid) }
        self.venueUUIDs = unique
    }

    /// The verdict on a beacon heard with identity `key` from advertiser `address`.
    public func verdict(for key: BeaconIdentity, address: UInt64) -> Verdict {
        for rule in rules where rule.role == .venue && rule.matches(key, address: address) { return .venue }
        for rule in rules where rule.role == .client && rule.matches(key, address: address) { return .client }
        if key.kind == .uuidMajorMinor, venueUUIDs.contains(where: { $0.high == key.high && $0.low == key.low }) { return .venue }
        return .unlisted
    }
}
