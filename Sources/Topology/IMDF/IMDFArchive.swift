public import Foundation

/// The GeoJSON files of an IMDF archive (`manifest.json`, `venue.geojson`, `level.geojson`, …), by
/// file name, read from an unpacked directory or a `.zip`.
///
/// A ZIP is unpacked with `unzip` (Info-ZIP, `scripts/setup` installs it): the package has no ZIP
/// library, Foundation on Linux offers none, and IMDF archives are small, so a child process is the
/// least code to trust. An archive whose files sit in one top folder is read from that folder.
public struct IMDFArchive: Sendable {
    /// File name → contents.
    public var files: [String: Data]

    public init(files: [String: Data]) {
        self.files = files
    }

    /// Reads a directory or a ZIP file.
    public init(contentsOf url: URL) throws(IMDFError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw IMDFError([.init(file: url.path, message: "no such file or directory")])
        }
        if isDirectory.boolValue {
            self = try Self.read(directory: url, shownAs: url.path)
            return
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        } catch {
            throw IMDFError([.init(file: url.path, message: "cannot create a scratch directory: \(error.localizedDescription)")])
        }
        try Self.unzip(url, into: scratch)
        self = try Self.read(directory: scratch, shownAs: url.path)
    }

    static func unzip(_ archive: URL, into directory: URL) throws(IMDFError) {
        let candidates = ["/usr/bin/unzip", "/bin/unzip", "/usr/local/bin/unzip", "/opt/homebrew/bin/unzip"]
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw IMDFError([
                .init(
                    file: archive.path, message: "reading a .zip needs unzip (apt-get install unzip); or unpack it and give the directory")
            ])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-qq", "-o", archive.path, "-d", directory.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw IMDFError([.init(file: archive.path, message: "cannot run \(tool): \(error.localizedDescription)")])
        }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw IMDFError([
                .init(
                    file: archive.path,
                    message: "not a readable ZIP archive (unzip: \(text.isEmpty ? "status \(process.terminationStatus)" : text))")
            ])
        }
    }

    static func read(directory: URL, shownAs name: String) throws(IMDFError) -> IMDFArchive {
        func jsonFiles(_ url: URL) -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).filter {
                $0.hasSuffix(".geojson") || $0.hasSuffix(".json")
            }
        }
        var root = directory
        var names = jsonFiles(root)
        if !names.contains("venue.geojson") {
            // One top folder (zip -r of a directory).
            let folders = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { entry in
                var isDirectory: ObjCBool = false
                return !entry.hasPrefix(".") && !entry.hasPrefix("__MACOSX")
                    && FileManager.default.fileExists(atPath: root.appendingPathComponent(entry).path, isDirectory: &isDirectory)
                    && isDirectory.boolValue
            }
            if folders.count == 1 {
                root = root.appendingPathComponent(folders[0])
                names = jsonFiles(root)
            }
        }
        var files: [String: Data] = [:]
        for file in names {
            do { files[file] = try Data(contentsOf: root.appendingPathComponent(file)) } catch {
                throw IMDFError([.init(file: file, message: "cannot read: \(error.localizedDescription)")])
            }
        }
        guard files["venue.geojson"] != nil else {
            throw IMDFError([
                .init(
                    file: name,
                    message: "no venue.geojson: not an IMDF archive (expected manifest.json, venue.geojson, level.geojson, unit.geojson, …)"
                )
            ])
        }
        return IMDFArchive(files: files)
    }
}
