public import Foundation

/// `P/v1/gateways/{gw}/config` (retained, QoS 1, coordinator → agent): what the venue asks one
/// gateway's agent to publish, derived from its topology (`clients.csv`, `regions.csv`,
/// `gateways.csv`) and published on start and on every topology reload. The agent applies it
/// while it runs; its own file, environment and flags override it, setting by setting.
///
/// Every field but `gateway` and `revision` is optional: an absent one leaves the agent's own value.
public struct GatewayConfiguration: VersionedPayload, Equatable {
    public var v: Int = 1
    /// The gateway it is for (also in the topic).
    public var gateway: String
    /// Names this content: the same venue gives the same revision, any change a new one. The agent
    /// reports the revision it runs in its status (``GatewayStatus/configuration``).
    public var revision: String
    /// The topology it was derived from.
    public var venue: String?
    /// When it was published.
    public var time: Date?
    /// The aggregation window, seconds (0.01…3600).
    public var window: Double?
    /// Advertisements weaker than this (dBm, −127…20) are dropped.
    public var minRssi: Int?
    /// The identities to publish: an advertisement is kept when a rule matches it. Absent: every
    /// identity (a venue without `clients.csv` tracks whatever it hears).
    public var keep: [KeepRule]?

    /// One kind of identity to publish, matched by exactly one of `uuid`, `namespace` or `addresses`.
    public struct KeepRule: Codable, Sendable, Equatable, Hashable {
        /// iBeacon and AltBeacon identities with this UUID (upper case, 8-4-4-4-12) …
        public var uuid: String?
        /// … and a major in `[first, last]`; absent: any major.
        public var majors: [UInt16]?
        /// Eddystone-UID identities in this namespace (20 hex digits), any instance.
        public var namespace: String?
        /// Any frame from an advertiser address in `[first, last]` (`AA:BB:CC:DD:EE:FF`).
        public var addresses: [String]?
        /// Why it is kept: `regions` (the venue's region beacons, for self-calibration) or `clients`.
        public var why: String?

        public init(uuid: String? = nil, majors: [UInt16]? = nil, namespace: String? = nil, addresses: [String]? = nil, why: String? = nil)
        {
            self.uuid = uuid
            self.majors = majors
            self.namespace = namespace
            self.addresses = addresses
            self.why = why
        }
    }

    public init(
        gateway: String, revision: String = "", venue: String? = nil, time: Date? = nil, window: Double? = nil, minRssi: Int? = nil,
        keep: [KeepRule]? = nil
    ) {
        self.gateway = gateway
        self.revision = revision
        self.venue = venue
        self.time = time
        self.window = window
        self.minRssi = minRssi
        self.keep = keep
    }

    /// The same content with ``revision`` set from it: the 64-bit FNV-1a hash, in hex, of the
    /// canonical JSON of everything but `revision` and `time`.
    public func revised() -> GatewayConfiguration {
        var content = self
        content.revision = ""
        content.time = nil
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in (try? WireCoding.encode(content)) ?? [] {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        var revised = self
        let digits = String(hash, radix: 16)
        revised.revision = String(repeating: "0", count: 16 - digits.count) + digits
        return revised
    }
}
