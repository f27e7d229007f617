/// One finding of the topology validator: an error (the venue cannot be used) or a warning (an
/// oddity worth a look), always with the file and line it concerns.
public struct TopologyDiagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a finding is.
    public enum Severity: String, Sendable, Hashable {
        case error
        case warning
    }

    public var severity: Severity
    public var location: SourceLocation
    public var message: String

    public init(_ severity: Severity, _ location: SourceLocation, _ message: String) {
        self.severity = severity
        self.location = location
        self.message = message
    }

    /// `FILE:LINE: error: message`, the form compilers use, so editors can jump to it.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}
