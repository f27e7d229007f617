import Foundation
import TestSupport
import Testing

/// An unreachable broker is said, not waited on in silence: each long-running command logs the
/// failed connection with its cause at once, keeps retrying, and SIGTERM ends it even though no
/// broker ever answered (issue 16). Nothing listens on 127.0.0.1:1.
@Suite("An unreachable broker, through the binary", .requiresBeaconFleetBinary, .timeLimit(.minutes(1)))
struct UnreachableBrokerTests {
    @Test(
        "says the refused connection, retries, and ends on SIGTERM",
        arguments: [
            ["coordinator", "--broker", "mqtt://127.0.0.1:1", "--topology", "topology/museum"],
            ["simulate", "--broker", "mqtt://127.0.0.1:1", "--topology", "topology/museum", "--clients", "2"],
            ["watch", "--broker", "mqtt://127.0.0.1:1"],
        ])
    func unreachable(arguments: [String]) async throws {
        let command = try BeaconFleetCommand(arguments)
        // Two attempts said, each with its cause: it retries rather than giving up or going quiet.
        try await command.waitForErrors(matching: "MQTT connection failed", count: 2)
        #expect(command.errors.contains("no connection to mqtt://127.0.0.1:1: Connection refused"))
        #expect(command.process.isRunning)
        kill(command.process.processIdentifier, SIGTERM)
        // A bound for a broken run (before the fix the coordinator ignored SIGTERM for minutes).
        let status = try await command.waitForExit(within: .seconds(15))
        // The coordinator ends cleanly; simulate and watch end by the signal's default action.
        #expect(status == 0 || status == SIGTERM)
    }
}

extension BeaconFleetCommand {
    /// Waits until standard error contains `text` `count` times, failing after `limit` or if the process exits first.
    fileprivate func waitForErrors(matching text: String, count: Int, within limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while errors.components(separatedBy: text).count - 1 < count {
            guard process.isRunning else {
                throw CommandError("beaconfleet exited (\(process.terminationStatus)) without logging '\(text)' \(count)×:\n\(output)\n\(errors)")
            }
            guard ContinuousClock.now < deadline else { throw CommandError("'\(text)' not logged \(count)× within \(limit):\n\(errors)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
