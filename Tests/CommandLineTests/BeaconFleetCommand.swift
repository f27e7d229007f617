import Foundation
import TestSupport

/// The built `beaconfleet` run as a child process from the package root (so `topology/museum`
/// resolves as in the `--help` examples), with its standard output and error in files.
final class BeaconFleetCommand: @unchecked Sendable {
    let process = Process()
    private let directory: URL

    /// Starts `beaconfleet arguments…`, with `input` on standard input (else /dev/null).
    init(_ arguments: [String], input: String? = nil) throws {
        guard let binary = BuiltProduct.beaconfleet else { throw CommandError(BuiltProduct.missingMessage("beaconfleet")) }
        directory = try makeTemporaryDirectory("beaconfleet-command")
        for name in ["stdout", "stderr", "stdin"] {
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent(name).path, contents: nil)
        }
        try Data((input ?? "").utf8).write(to: directory.appendingPathComponent("stdin"))
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = SharedData.packageRoot
        process.standardInput = try FileHandle(forReadingFrom: directory.appendingPathComponent("stdin"))
        process.standardOutput = try FileHandle(forWritingTo: directory.appendingPathComponent("stdout"))
        process.standardError = try FileHandle(forWritingTo: directory.appendingPathComponent("stderr"))
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// What it wrote to standard output so far.
    var output: String { (try? String(contentsOf: directory.appendingPathComponent("stdout"), encoding: .utf8)) ?? "" }
    /// What it wrote to standard error so far.
    var errors: String { (try? String(contentsOf: directory.appendingPathComponent("stderr"), encoding: .utf8)) ?? "" }

    /// Waits for the exit and returns the status; after `limit` (a bound for a broken run, not a
    /// measure of speed) kills the process and throws.
    func waitForExit(within limit: Duration = .seconds(120)) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                kill(process.processIdentifier, SIGKILL)
                throw CommandError("beaconfleet \(process.arguments ?? []) still running after \(limit); output:\n\(output)\n\(errors)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    /// Waits until standard output contains `text`, failing after `limit` or if the process exits first.
    func waitForOutput(containing text: String, within limit: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + limit
        while !output.contains(text) {
            guard process.isRunning else {
                throw CommandError("beaconfleet exited (\(process.terminationStatus)) without printing '\(text)':\n\(output)\n\(errors)")
            }
            guard ContinuousClock.now < deadline else { throw CommandError("no '\(text)' within \(limit):\n\(output)\n\(errors)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until standard error contains `text` `count` times, failing after `limit` or if the process exits first.
    func waitForErrors(matching text: String, count: Int = 1, within limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while errors.components(separatedBy: text).count - 1 < count {
            guard process.isRunning else {
                throw CommandError(
                    "beaconfleet exited (\(process.terminationStatus)) without logging '\(text)' \(count)×:\n\(output)\n\(errors)")
            }
            guard ContinuousClock.now < deadline else { throw CommandError("'\(text)' not logged \(count)× within \(limit):\n\(errors)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `beaconfleet arguments…` to its end: (status, standard output, standard error).
    static func run(_ arguments: [String], input: String? = nil, within limit: Duration = .seconds(120)) async throws -> (
        status: Int32, output: String, errors: String
    ) {
        let command = try BeaconFleetCommand(arguments, input: input)
        let status = try await command.waitForExit(within: limit)
        return (status, command.output, command.errors)
    }
}

struct CommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
