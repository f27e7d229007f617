/// Where something was written in a venue's files: the file's path and a 1-based line number.
///
/// Every diagnostic carries one, so that messages read `FILE:LINE: message`.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file's path as the venue directory was given, for example `topology/museum/links.csv`.
    public var file: String
    /// The 1-based line number in that file (0 when the problem concerns the whole file).
    public var line: Int

    public var description: String { line > 0 ? "\(file):\(line)" : file }
}
