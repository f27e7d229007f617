/// A branch-free base-2 logarithm in `Float` for the estimator's grid, within 4e-7 plus half an ulp
/// of the result of the exact value over the positive normal floats (libm's is exact to the last bit,
/// several times slower, and a call that stops the loop from being vectorised).
///
/// The exponent comes from the float's bits; the mantissa is first brought into [√½, √2), so
/// `t = (m − 1)/(m + 1)` stays within ±0.172, and ln m = 2·atanh t = 2t(1 + t²/3 + t⁴/5 + t⁶/7 + …)
/// cut after t⁶ (the first term left out is below 3e-8). Not for zero, negative, subnormal,
/// infinite or NaN inputs: the grid only asks it for squared distances of at least the model's
/// minimum distance and for 1 + z².
enum FastLog {
    @inline(__always)
    static func log2(_ x: Float) -> Float {
        // musl's logf reduction: shift so that mantissas from √½ up carry into the exponent.
        let shifted = x.bitPattern &+ (0x3F80_0000 &- 0x3F35_04F3)
        let exponent = Float(Int32(bitPattern: shifted) &>> 23 &- 0x7F)
        let mantissa = Float(bitPattern: (shifted & 0x007F_FFFF) &+ 0x3F35_04F3)  // in [√½, √2)
        let t = (mantissa - 1) / (mantissa + 1)
        let t2 = t * t
        let lnMantissa = 2 * t * (1 + t2 * (1 / 3 + t2 * (1 / 5 + t2 * (1 / 7))))
        return exponent + lnMantissa * 1.442_695_04  // 1 / ln 2
    }
}
