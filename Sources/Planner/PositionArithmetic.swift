/// How ``PositionEstimator`` evaluates the radio likelihood on its grid.
public enum PositionArithmetic: Sendable, Hashable {
    /// `Float` with a polynomial log (``FastLog``), per-anchor squared offsets precomputed per
    /// column and row, and cells far below the posterior's peak left out of its moments: the
    /// production path, several times cheaper, with estimates equal to ``libm``'s to well under a
    /// millimetre.
    case fast
    /// `Double` with libm's `log10` and `log1p` at every grid point and anchor: the original
    /// formula, kept as the reference the fast path is tested and benchmarked against.
    case libm
}
