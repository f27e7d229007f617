/// Why an estimator could not be built.
public enum PositionError: Error, Hashable, CustomStringConvertible {
    /// Two anchors share an id.
    case duplicateAnchor(id: String)
    /// A configuration value is out of its range.
    case invalidConfiguration(field: String, value: Double, reason: String)

    public var description: String {
        switch self {
        case .duplicateAnchor(let id): return "position anchors: duplicate anchor id '\(id)'"
        case .invalidConfiguration(let field, let value, let reason):
            return "position estimator configuration: \(field) = \(value): \(reason)"
        }
    }
}
