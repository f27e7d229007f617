/// A venue that could not be loaded: every error found, each naming its file and line.
public struct TopologyError: Error, Sendable, CustomStringConvertible {
    /// The errors (never empty) followed by the warnings found in the same pass.
    public var diagnostics: [TopologyDiagnostic]

    public init(diagnostics: [TopologyDiagnostic]) {
        self.diagnostics = diagnostics
    }

    /// Only the errors.
    public var errors: [TopologyDiagnostic] { diagnostics.filter { $0.severity == .error } }

    public var description: String {
        let errors = self.errors
        let shown = errors.prefix(20).map(\.description).joined(separator: "\n")
        let more = errors.count > 20 ? "\n… and \(errors.count - 20) more errors" : ""
        return "invalid topology (\(errors.count) error\(errors.count == 1 ? "" : "s")):\n\(shown)\(more)"
    }
}

/// A query the topology cannot answer: an unknown region or level, a malformed position.
public enum TopologyQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    case unknownRegion(String)
    case unknownLevel(String)
    case noWalkableGraph(level: String)
    case malformedPosition(String)

    public var description: String {
        switch self {
        case .unknownRegion(let id): "unknown region '\(id)'"
        case .unknownLevel(let id): "unknown level '\(id)'"
        case .noWalkableGraph(let level): "level '\(level)' has no walkable links to snap to"
        case .malformedPosition(let text): "malformed position '\(text)': expected X,Y,LEVEL (metres, metres, level id)"
        }
    }
}
