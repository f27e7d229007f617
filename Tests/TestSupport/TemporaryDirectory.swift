public import Foundation

/// A new empty directory `PREFIX-UUID` in the system's temporary directory, for one test's files;
/// the caller removes it (or keeps it, for logs a failure is read from).
public func makeTemporaryDirectory(_ prefix: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// Writes `files` (name → contents) to a new temporary directory (``makeTemporaryDirectory(_:)``):
/// a venue's files, say, for `Topology.load(directory:)`.
public func writeTemporaryFiles(_ files: [String: String], prefix: String) throws -> URL {
    let directory = try makeTemporaryDirectory(prefix)
    for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
    return directory
}
