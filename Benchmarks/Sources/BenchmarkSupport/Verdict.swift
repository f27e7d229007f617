/// How a benchmark states a figure against its target: "met", "NOT met", or "not measured" when the
/// figure is no measurement — zero, negative, not finite, or its own check failed. A zero (memory
/// growth that reused freed pages, a cost below the noise of its baseline) must never read "met".
public func verdict(_ figure: Double, measured: Bool = true, meets: (Double) -> Bool) -> String {
    guard measured, figure.isFinite, figure > 0 else { return "not measured" }
    return meets(figure) ? "met" : "NOT met"
}
