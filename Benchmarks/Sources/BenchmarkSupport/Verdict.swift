/// How a benchmark states a figure against its target: "met", "NOT met", or "not measured" when the
/// figure is no measurement — zero, negative, not finite, or its own check failed. A zero (memory
/// growth that reused freed pages, a cost below the noise of its baseline) must never read "met".
///
/// `signed`: the figure may rightly be zero or negative (a slope, a count of failures such as lost
/// reports); then only `measured` (say, that anything was sampled at all) and finiteness decide
/// whether it is a measurement.
public func verdict(_ figure: Double, measured: Bool = true, signed: Bool = false, meets: (Double) -> Bool) -> String {
    guard measured, figure.isFinite, signed || figure > 0 else { return "not measured" }
    return meets(figure) ? "met" : "NOT met"
}

extension String {
    /// The verdict as a sentence starts it: "Met", "NOT met", "Not measured".
    public var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
