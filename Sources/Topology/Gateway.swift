/// A fixed BLE scanner (a `beaconfleet agent`), by its gateway id as used in MQTT topics.
public struct Gateway: Sendable, Hashable {
    public var id: String
    public var position: VenuePoint
    /// Height of the antenna above the floor in metres, when known.
    public var height: Double?
    public var source: SourceLocation

    public init(id: String, position: VenuePoint, height: Double? = nil, source: SourceLocation) {
        self.id = id
        self.position = position
        self.height = height
        self.source = source
    }
}
