import Foundation

/// A benchmark's result for docs/benchmarks.md: one JSON file a target in Benchmarks/Results,
/// written by `scripts/benchmark-results write` (which adds the date and the commit measured), from
/// which `scripts/benchmark-results doc` makes the table.
public enum BenchmarkResult {
    /// Records the latest figure for target `id`; a failure to record is said, not fatal.
    public static func record(id: String, target: String, figure: String, baseline: String, command: String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appendingPathComponent("scripts/benchmark-results")
        process.arguments = ["write", id, "target=\(target)", "figure=\(figure)", "baseline=\(baseline)", "command=\(command)"]
        do {
            try process.run()
            process.waitUntilExit()
        } catch {
            print("(result not recorded: \(error))")
        }
    }
}
