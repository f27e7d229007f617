/// What an IMDF archive got wrong: each problem names the file, the feature id and the field.
public struct IMDFError: Error, Sendable, CustomStringConvertible {
    /// One problem, e.g. `unit.geojson: feature 'u1': level_id: unknown level 'x'`.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        public var file: String
        /// The feature's id; nil for a problem with the whole file.
        public var featureID: String?
        /// The member or property at fault (`geometry`, `level_id`, …); nil for the whole feature.
        public var field: String?
        public var message: String

        public var description: String {
            var text = file + ": "
            if let featureID { text += "feature '\(featureID)': " }
            if let field { text += "\(field): " }
            return text + message
        }
    }

    /// Every problem found (never empty).
    public var problems: [Problem]

    public init(_ problems: [Problem]) {
        self.problems = problems
    }

    public var description: String {
        "invalid IMDF archive (\(problems.count) problem\(problems.count == 1 ? "" : "s")):\n"
            + problems.map(\.description).joined(separator: "\n")
    }
}
