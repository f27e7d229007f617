/// A failure iOS reported for a region (`monitoringDidFailFor` with a `CLError`).
public struct RegionMonitorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `CLError.Code.regionMonitoringFailure`: past the 20-region limit, or a start too soon
    /// (about 0.1 s) after a stop.
    public static let regionMonitoringFailure = 5

    /// The `CLError` code.
    public var code: Int
    /// What iOS (or the fake) said.
    public var message: String

    public init(code: Int, message: String = "") {
        self.code = code
        self.message = message
    }

    public var description: String { message.isEmpty ? "CLError \(code)" : "CLError \(code): \(message)" }
}
