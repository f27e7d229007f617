/// One anchor's radio evidence about a client over one window: a gateway's sighting of the
/// client, or a beacon the client's phone ranged.
public struct PositionObservation: Sendable, Hashable {
    /// Index of the anchor in ``PositionEstimator/anchors`` (see ``PositionEstimator/anchorIndex(of:)``).
    public var anchor: Int
    /// Mean RSSI over the window, dBm.
    public var rssi: Double
    /// Advertisements averaged into `rssi` (more readings, more weight).
    public var count: Int
    /// The transmitter's measured power at 1 m, dBm, when it advertises one.
    public var txPower: Double?

    public init(anchor: Int, rssi: Double, count: Int = 1, txPower: Double? = nil) {
        self.anchor = anchor
        self.rssi = rssi
        self.count = count
        self.txPower = txPower
    }
}

/// A region boundary crossing the phone reported: the client is inside (enter) or outside (exit)
/// the circle of `radius` metres around (x, y) on `level`. A `radius` of `.infinity` is a
/// level-wide region (a UUID + major wildcard for one level): the client is on (enter) or off
/// (exit) that level.
public struct PositionConstraint: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case inside, outside }
    public var kind: Kind
    public var x: Double
    public var y: Double
    public var level: String
    public var radius: Double

    public init(_ kind: Kind, x: Double, y: Double, level: String, radius: Double) {
        self.kind = kind
        self.x = x
        self.y = y
        self.level = level
        self.radius = max(radius, 0)
    }
}
