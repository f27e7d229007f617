public import Foundation

/// Locates the real test material in `../shared/data` (captures, vectors, datasets).
///
/// Tests that need it say so with `@Test(.requiresSharedData)` (or `@Suite(...)`): they skip with a
/// clear message when it is absent, and fail with it in CI (see ``Prerequisite``).
public enum SharedData {
    /// `../shared/data` next to the package root, or `$BEACONFLEET_SHARED_DATA` when set.
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["BEACONFLEET_SHARED_DATA"] {
            return URL(fileURLWithPath: override, isDirectory: true)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
    }()

    /// The package root, found from this source file's path.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // TestSupport, Tests, root
        return url
    }()

    /// Whether the shared data folder is present.
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("README.md").path)
    }

    /// Why data-driven tests were skipped (or, in CI, failed).
    public static var missingMessage: String {
        "../shared/data not found at \(directory.path); set BEACONFLEET_SHARED_DATA to run the data tests"
    }

    /// A file under `../shared/data`, for example `captures/multireport.btsnoop`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }
}
