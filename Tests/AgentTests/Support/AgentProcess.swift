import Foundation
import TestSupport

/// The built `beaconfleet` executable run as a child process, so tests exercise the command-line
/// contract and can kill the agent for real (SIGKILL).
final class AgentProcess: @unchecked Sendable {
    let process = Process()
    let output: URL

    /// Starts `beaconfleet agent` with `arguments`; its standard error goes to a log file.
    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        guard let executable = BuiltProduct.beaconfleet else {
            throw AgentProcessError(message: BuiltProduct.missingMessage("beaconfleet"))
        }
        output = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.executableURL = executable
        process.arguments = ["agent"] + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("BEACONFLEET_AGENT_") }
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    /// Everything the agent wrote so far.
    var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    var isRunning: Bool { process.isRunning }

    /// Sends `signal` (SIGTERM, SIGKILL).
    func send(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the exit (killing the agent after `limit`, then failing) and returns its status.
    func waitForExit(within limit: Duration) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            if ContinuousClock.now > deadline {
                send(SIGKILL)
                process.waitUntilExit()
                throw AgentProcessError(message: "the agent did not exit within \(limit); its log:\n\(log)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: output)
    }
}

struct AgentProcessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
