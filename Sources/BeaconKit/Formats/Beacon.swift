/// A decoded beacon advertisement.
public enum Beacon: Sendable, Hashable {
    case iBeacon(IBeacon)
    case altBeacon(AltBeacon)
    case eddystoneUID(EddystoneUID)
    case eddystoneURL(EddystoneURL)
    case eddystoneTLM(EddystoneTLM)
    /// An Eddystone frame of another type (EID 0x30, encrypted TLM, reserved types), reported
    /// with its frame type byte.
    case eddystoneUnknown(frameType: UInt8)

    /// The format, as named in the wire contract.
    public var format: BeaconFormat {
        switch self {
        case .iBeacon: .iBeacon
        case .altBeacon: .altBeacon
        case .eddystoneUID: .eddystoneUID
        case .eddystoneURL: .eddystoneURL
        case .eddystoneTLM: .eddystoneTLM
        case .eddystoneUnknown: .eddystoneUnknown
        }
    }

    /// What identifies the beacon across advertisements and addresses (iBeacon and AltBeacon:
    /// UUID, major, minor; Eddystone-UID: namespace and instance). `nil` for frames that carry
    /// no identity (URL, TLM, unknown): key those by the advertiser's address.
    public var identity: BeaconIdentity? {
        switch self {
        case .iBeacon(let b): BeaconIdentity(uuid: b.uuid, major: b.major, minor: b.minor)
        case .altBeacon(let b): BeaconIdentity(uuid: b.id1, major: b.id2, minor: b.id3)
        case .eddystoneUID(let b): BeaconIdentity(namespace: b.namespace, instance: b.instance)
        case .eddystoneURL, .eddystoneTLM, .eddystoneUnknown: nil
        }
    }

    /// The TX power field as the beacon sends it: measured power at 1 m for iBeacon and AltBeacon,
    /// calibrated power at 0 m for Eddystone UID and URL; `nil` for TLM and unknown frames.
    public var txPower: Int8? {
        switch self {
        case .iBeacon(let b): b.measuredPower
        case .altBeacon(let b): b.referenceRSSI
        case .eddystoneUID(let b): b.txPower
        case .eddystoneURL(let b): b.txPower
        case .eddystoneTLM, .eddystoneUnknown: nil
        }
    }

    /// The expected RSSI at 1 m, the reference a ``DistanceModel`` needs: iBeacon's measured
    /// power, AltBeacon's reference RSSI, Eddystone's 0 m power minus 41 dB (the Eddystone
    /// specification's path loss over the first metre).
    public var measuredPowerAt1m: Int8? {
        switch self {
        case .iBeacon(let b): b.measuredPower
        case .altBeacon(let b): b.referenceRSSI
        case .eddystoneUID(let b): Int8(clamping: Int(b.txPower) - 41)
        case .eddystoneURL(let b): Int8(clamping: Int(b.txPower) - 41)
        case .eddystoneTLM, .eddystoneUnknown: nil
        }
    }
}
