/// How ``PositionEstimator`` evaluates the radio likelihood on its grid.
public enum PositionArithmetic: Sendable, Hashable {
    /// `Float` with polynomial logs and exps (``FastLog``, ``FastExp``), per-anchor squared offsets
    /// precomputed per column and row, and the posterior's moments four cells at a time: the
    /// production path, several times cheaper, with estimates equal to ``libm``'s to well under a
    /// millimetre.
    case fast
    /// `Double` with libm's `log10` and `log1p` at every grid point and anchor: the original
    /// formula, kept as the reference the fast path is tested and benchmarked against.
    case libm
}
