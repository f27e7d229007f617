/// e^x in `Double` for the estimator's posterior moments, within 1e-12 relative of the exact value
/// over [−700, 0] (libm's `exp` is exact to the last bit and, once per grid cell, was 4–6 % of a
/// pinned coordinator's core: `perf record`, `CoordinatorBenchmark e2e-pinned`).
///
/// x·log₂e is split into an integer n and f in [−½, ½] by adding and subtracting 1.5·2⁵² (round to
/// nearest without SSE4.1's `roundsd`, which the x86-64 baseline lacks); e^x = 2ⁿ · e^r with
/// r = f·ln 2 in [−0.347, 0.347], e^r by its Taylor series to r¹¹ (the first term left out, r¹²/12!,
/// is below 6e-15), and 2ⁿ built from its exponent bits. Not for x above 0 or below −700 (2ⁿ must
/// be a normal double): the posterior only asks for log densities relative to their peak, cut at −36.
enum FastExp {
    @inline(__always)
    static func exp(_ x: Double) -> Double {
        let shifter = 6_755_399_441_055_744.0  // 1.5 · 2⁵²: adding it rounds to an integer
        let shifted = x * 1.442_695_040_888_963_4 + shifter  // x · log₂e
        let n = shifted - shifter
        let r = (x - n * 0.693_147_180_369_123_8) - n * 1.908_214_929_270_587_7e-10  // x − n·ln 2, ln 2 in two parts
        var p = 1.0 / 39_916_800  // 1/11!
        p = p * r + 1.0 / 3_628_800
        p = p * r + 1.0 / 362_880
        p = p * r + 1.0 / 40_320
        p = p * r + 1.0 / 5_040
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        p = p * r + 1
        p = p * r + 1
        // `shifted`'s significand field holds 2⁵¹ + n.
        let exponent = Int64(bitPattern: shifted.bitPattern & 0x000F_FFFF_FFFF_FFFF) &- (1 << 51) &+ 1023
        return p * Double(bitPattern: UInt64(bitPattern: exponent) << 52)
    }
}
