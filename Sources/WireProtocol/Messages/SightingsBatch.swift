public import BeaconKit
public import Foundation

/// `P/v1/gateways/{gw}/sightings` (QoS 1, not retained): one aggregation window of one gateway.
///
/// `seq` is per gateway, starts at 1, and never repeats or skips, also across agent restarts, so
/// the coordinator can tell a lost or duplicated batch from a late one.
public struct SightingsBatch: VersionedPayload, Equatable {
    public var v: Int = 1
    /// The gateway that heard these beacons (also in the topic).
    public var gateway: String?
    /// Per-gateway monotonic sequence number.
    public var seq: UInt64
    /// The gateway's spool epoch (1…2^53 − 1), new when its spool is new; optional (older agents
    /// send none). A batch with another epoch than the last one of its gateway starts a new `seq` run.
    public var epoch: UInt64?
    /// The window's own start and end, as heard (not as published).
    public var start: Date
    public var end: Date
    public var sightings: [Sighting]

    public init(gateway: String? = nil, seq: UInt64, epoch: UInt64? = nil, start: Date, end: Date, sightings: [Sighting]) {
        self.gateway = gateway
        self.seq = seq
        self.epoch = epoch
        self.start = start
        self.end = end
        self.sightings = sightings
    }
}

/// One beacon heard during one window by one gateway.
public struct Sighting: Codable, Sendable, Equatable {
    /// `ibeacon`, `altbeacon`, `eddystone-uid`, `eddystone-url`, `eddystone-tlm`.
    public var format: String
    /// iBeacon / AltBeacon identity: UUID upper-case with hyphens, major, minor.
    public var uuid: String?
    public var major: UInt16?
    public var minor: UInt16?
    /// Eddystone-UID identity: 10-byte namespace and 6-byte instance, hex.
    public var namespace: String?
    public var instance: String?
    /// The advertiser's address, `AA:BB:CC:DD:EE:FF`.
    public var address: String
    /// Filtered mean RSSI over the window, dBm.
    public var rssi: Double
    /// Strongest RSSI in the window, dBm.
    public var rssiMax: Int
    /// Advertisements heard in the window.
    public var count: Int
    /// Measured power at 1 m (iBeacon / AltBeacon) or at 0 m (Eddystone), dBm.
    public var txPower: Int?
    /// Estimated distance in metres from the filtered RSSI.
    public var distance: Double?

    public init(
        format: String, uuid: String? = nil, major: UInt16? = nil, minor: UInt16? = nil, namespace: String? = nil, instance: String? = nil,
        address: String, rssi: Double, rssiMax: Int, count: Int, txPower: Int? = nil, distance: Double? = nil
    ) {
        self.format = format
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.namespace = namespace
        self.instance = instance
        self.address = address
        self.rssi = rssi
        self.rssiMax = rssiMax
        self.count = count
        self.txPower = txPower
        self.distance = distance
    }
}

extension Sighting {
    /// Sets the identity fields `format` carries: `uuid`, `major`, `minor` for iBeacon and
    /// AltBeacon, `namespace` and `instance` for Eddystone-UID, none for the others.
    public mutating func setIdentity(_ identity: BeaconIdentity, format: BeaconFormat) {
        switch format {
        case .iBeacon, .altBeacon:
            uuid = identity.uuid.description
            major = identity.major
            minor = identity.minor
        case .eddystoneUID:
            namespace = identity.namespaceHex
            instance = identity.instanceHex
        case .eddystoneURL, .eddystoneTLM, .eddystoneUnknown:
            break
        }
    }
}
