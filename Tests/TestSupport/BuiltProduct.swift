public import Foundation

/// The package's executables as `swift build` left them, for tests that run them as child processes
/// (`scripts/test` builds them first).
public enum BuiltProduct {
    /// `beaconfleet`: `$BEACONFLEET_BINARY` when set, else next to the test bundle (the same build
    /// configuration as the tests), else `.build/debug`. `beaconfleet agent` execs `beaconfleet-agent`
    /// from the same directory when it is there.
    public static let beaconfleet: URL? = locate("beaconfleet", override: "BEACONFLEET_BINARY")

    /// What to do when `name` is missing.
    public static func missingMessage(_ name: String) -> String {
        "the \(name) executable was not found (at $BEACONFLEET_BINARY when set, else next to the test bundle or in "
            + ".build/debug); run `swift build --product \(name)` (scripts/test does)"
    }

    /// The executable `name`: the path in the `override` environment variable when that is set
    /// (and nothing else), or the first found of the test bundle's directory and its parents, then
    /// `.build/debug` under the package root.
    public static func locate(_ name: String, override: String? = nil) -> URL? {
        var candidates: [URL] = []
        if let override, let path = ProcessInfo.processInfo.environment[override] {
            candidates.append(URL(fileURLWithPath: path))  // set: that one, or none
        } else {
            candidates += nextToTheTests(name)
        }
        return candidates.first { candidate in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && FileManager.default.isExecutableFile(atPath: candidate.path)
        }
    }

    private static func nextToTheTests(_ name: String) -> [URL] {
        var candidates: [URL] = []
        if let bundle = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(bundle.appendingPathComponent(name))
        }
        for argument in CommandLine.arguments.prefix(2) {
            var directory = URL(fileURLWithPath: argument).resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent(name))
                directory.deleteLastPathComponent()
            }
        }
        candidates.append(SharedData.packageRoot.appendingPathComponent(".build/debug/\(name)"))
        return candidates
    }
}
