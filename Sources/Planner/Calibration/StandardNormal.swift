import Foundation

/// The standard normal distribution's density, distribution function and quantile, for the
/// self-calibration's censored fit (a pair heard in only part of the windows).
enum StandardNormal {
    /// φ(z).
    static func density(_ z: Double) -> Double {
        exp(-0.5 * z * z) / (2 * Double.pi).squareRoot()
    }

    /// Φ(z).
    static func distribution(_ z: Double) -> Double {
        0.5 * erfc(-z / 2.squareRoot())
    }

    /// Φ⁻¹(p) for p in (0, 1) (Acklam's rational approximation, relative error below 1.2e-9), clamped
    /// to ±8 at the ends.
    static func quantile(_ p: Double) -> Double {
        guard p > 0 else { return -8 }
        guard p < 1 else { return 8 }
        let a = [
            -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01,
            2.506628277459239e+00,
        ]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01]
        let c = [
            -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00,
            2.938163982698783e+00,
        ]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p > 1 - low {
            let q = (-2 * log(1 - p)).squareRoot()
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let q = p - 0.5
        let r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }

    /// The `p` quantile of the χ² distribution with `degrees` degrees of freedom (Wilson and
    /// Hilferty's normal approximation, within a few per cent from 2 degrees up).
    static func chiSquareQuantile(_ p: Double, degrees: Double) -> Double {
        guard degrees > 0 else { return 0 }
        let a = 2 / (9 * degrees)
        let cube = 1 - a + quantile(p) * a.squareRoot()
        return degrees * max(cube, 0) * max(cube, 0) * max(cube, 0)
    }
}
