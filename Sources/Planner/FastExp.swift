/// e^x for four `Float`s at once, for the estimator's posterior moments: within 2.5e-7 relative of
/// the exact value over [−87, 0] (libm's `exp`, once per grid cell in `Double`, was 4–6 % of a
/// pinned coordinator's core; the scalar `Double` polynomial that replaced it, over half of the
/// posterior's time: `perf record`, `CoordinatorBenchmark e2e-pinned`).
///
/// x·log₂e is split into an integer n and f in [−½, ½] by adding and subtracting 1.5·2²³ (round to
/// nearest without SSE4.1's `roundps`, which the x86-64 baseline lacks); e^x = 2ⁿ · e^r with
/// r = x − n·ln 2 in [−0.347, 0.347], e^r by Cephes' `expf` polynomial, and 2ⁿ built from its
/// exponent bits. Below −87 (where 2ⁿ would leave the normal floats) the answer is e^−87, about
/// 1.6e-38: the posterior only asks for densities relative to their peak (x ≤ 0), and one cell so
/// far below it counts for nothing against the peak's 1.
enum FastExp {
    @inline(__always)
    static func exp(_ x: SIMD4<Float>) -> SIMD4<Float> {
        let x = x.replacing(with: -87, where: x .< -87)
        let shifter: Float = 12_582_912  // 1.5 · 2²³: adding it rounds to an integer
        let shifted = x * 1.442_695_04 + shifter  // x · log₂e
        let n = shifted - shifter
        let r = (x - n * 0.693_359_375) + n * 2.121_944_4e-4  // x − n·ln 2, ln 2 in two parts
        var p = SIMD4<Float>(repeating: 1.987_569_15e-4)
        p = p * r + 1.398_199_95e-3
        p = p * r + 8.333_451_9e-3
        p = p * r + 4.166_579_59e-2
        p = p * r + 1.666_666_55e-1
        p = p * r + 5.000_000_12e-1
        p = p * (r * r) + r + 1
        // `shifted`'s significand field holds 2²² + n.
        let field = unsafeBitCast(shifted, to: SIMD4<Int32>.self) & 0x007F_FFFF
        let exponent = (field &- (1 << 22) &+ 127) &<< 23
        return p * unsafeBitCast(exponent, to: SIMD4<Float>.self)
    }
}
