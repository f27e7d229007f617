/// A fixed BLE scanner (a `beaconfleet agent`), by its gateway id as used in MQTT topics.
public struct Gateway: Sendable, Hashable {
    public var id: String
    public var position: VenuePoint
    /// Height of the antenna above the floor in metres, when known.
    public var height: Double?
    /// A declared RSSI offset, dB (`gateways.csv`'s `rssi_offset`; positive: it reads hot): fixed,
    /// self-calibration does not override it.
    public var rssiOffset: Double?
    /// A declared path-loss exponent around this gateway (`path_loss_exponent`): fixed likewise.
    public var pathLossExponent: Double?
    /// The aggregation window its agent is asked to use, seconds (`gateways.csv`'s `window`); `nil`: the agent's own.
    public var window: Double?
    /// Advertisements weaker than this (dBm) its agent is asked to drop (`min_rssi`); `nil`: the agent's own.
    public var minRSSI: Int?
    public var source: SourceLocation
}
