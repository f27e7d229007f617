import Foundation
import Topology

/// Noise addressed by coordinates instead of drawn in sequence: the same (seed, a, b, c) always
/// gives the same standard normal value, so strategies compared on one walk see identical radio.
public struct CounterNoise: Sendable, Hashable {
    public var seed: UInt64

    public init(seed: UInt64) { self.seed = seed }

    /// A uniform value in (0, 1).
    public func uniform(_ a: UInt64, _ b: UInt64, _ c: UInt64, stream: UInt64 = 0) -> Double {
        var h = SplitMix64.mix(seed ^ 0xA076_1D64_78BD_642F)
        h = SplitMix64.mix(h ^ a)
        h = SplitMix64.mix(h ^ (b &* 0x9E37_79B9_7F4A_7C15))
        h = SplitMix64.mix(h ^ (c &* 0xC2B2_AE3D_27D4_EB4F))
        h = SplitMix64.mix(h ^ stream)
        return (Double(h >> 11) + 0.5) / Double(UInt64(1) << 53)
    }

    /// A standard normal value (Box–Muller over two addressed uniforms).
    public func normal(_ a: UInt64, _ b: UInt64, _ c: UInt64) -> Double {
        let u1 = uniform(a, b, c, stream: 1)
        let u2 = uniform(a, b, c, stream: 2)
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
