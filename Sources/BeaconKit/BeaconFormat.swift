/// The beacon formats BeaconKit decodes, named as in the wire contract and `decode --json`.
public enum BeaconFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// Apple iBeacon: manufacturer data `4C 00 02 15`, UUID, major, minor, measured power.
    case iBeacon = "ibeacon"
    /// AltBeacon: manufacturer data with beacon code `BE AC` after any company id.
    case altBeacon = "altbeacon"
    /// Eddystone-UID: 10-byte namespace, 6-byte instance.
    case eddystoneUID = "eddystone-uid"
    /// Eddystone-URL: a compressed URL.
    case eddystoneURL = "eddystone-url"
    /// Eddystone-TLM: telemetry (battery, temperature, counters), unencrypted.
    case eddystoneTLM = "eddystone-tlm"
    /// Any other Eddystone frame (EID, encrypted TLM, reserved types).
    case eddystoneUnknown = "eddystone-unknown"
}
