/// An auto-regressive moving-average RSSI filter: each sample moves the estimate a fixed share
/// of the way towards it (`estimate += speed × (rssi − estimate)`), as the AltBeacon library's
/// `ArmaRssiFilter` does. Constant time and memory; reacts faster than a 20 s mean.
public struct ARMARSSIFilter: Sendable {
    /// How far each sample moves the estimate, 0.001 … 1 (default 0.1; out-of-range values are clamped).
    public let speed: Double
    /// The current estimate in dBm, `nil` before the first sample.
    public private(set) var value: Double?

    public init(speed: Double = 0.1) {
        self.speed = speed.isNaN ? 0.1 : min(max(speed, 0.001), 1)
    }

    /// Adds a sample; the first one sets the estimate.
    public mutating func add(_ rssi: Int8) {
        if let current = value {
            value = current - speed * (current - Double(rssi))
        } else {
            value = Double(rssi)
        }
    }
}
