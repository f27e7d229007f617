/// Something at a known place whose signal locates a client: a gateway that hears the client's
/// advertisements, or a fixed region beacon the client's phone ranges.
///
/// Radio calibration is optional: `rssiOffset` corrects a receiver's gain (a gateway that reads
/// 5 dB hot has `rssiOffset = 5`), `exponent` overrides the path-loss exponent around this anchor.
public struct PositionAnchor: Sendable, Hashable, Codable {
    /// Gateway id or region id, unique among an estimator's anchors.
    public var id: String
    /// Position in metres on `level`; `height` above that level's floor.
    public var x: Double
    public var y: Double
    public var height: Double
    /// The level's name as the topology spells it.
    public var level: String
    /// Added to the model's expected RSSI for this anchor, dB.
    public var rssiOffset: Double
    /// The path-loss exponent around this anchor, or `nil` for the model's.
    public var exponent: Double?

    public init(id: String, x: Double, y: Double, height: Double = 0, level: String, rssiOffset: Double = 0, exponent: Double? = nil) {
        self.id = id
        self.x = x
        self.y = y
        self.height = height
        self.level = level
        self.rssiOffset = rssiOffset
        self.exponent = exponent
    }
}

/// The rectangle of a level where clients can be, metres. Estimates never leave it.
public struct PositionArea: Sendable, Hashable, Codable {
    public var level: String
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(level: String, minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.level = level
        self.minX = min(minX, maxX)
        self.minY = min(minY, maxY)
        self.maxX = max(minX, maxX)
        self.maxY = max(minY, maxY)
    }
}
