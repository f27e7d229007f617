import Foundation
import MosquittoTesting
import TestSupport
import Testing

/// SIGTERM ends a running coordinator at once, whatever it is doing (issue 16: "ends it promptly in
/// every state"). Its periodic loops stop sleeping when graceful shutdown begins, and it does not
/// wait for acknowledgements from a broker it has lost. Before, the 5 s housekeeping sleep held a
/// connected coordinator's exit for up to 5 s, and one whose broker had gone waited 2 s more.
/// ``UnreachableBrokerTests`` covers the state before any connection; `CoordinatorShutdownTests`
/// (CoordinatorTests) what the exit drains, persists and publishes.
@Suite("SIGTERM ends a running coordinator at once, through the binary", .requiresBeaconFleetBinary, .timeLimit(.minutes(1)))
struct ShutdownTests {
    /// How long the coordinator may take to end after SIGTERM: a bound under the housekeeping sleep
    /// that held it, not a measure of speed.
    static let prompt = Duration.seconds(3)

    @Test("connected to its broker, just after coming online")
    func connected() async throws {
        try await withMosquittoBroker { broker in
            let command = try BeaconFleetCommand(["coordinator", "--broker", broker.url.description, "--topology", "topology/museum"])
            try await command.waitForErrors(matching: "coordinator online")
            kill(command.process.processIdentifier, SIGTERM)
            #expect(try await command.waitForExit(within: Self.prompt) == 0)
        }
    }

    @Test("after its broker went away")
    func brokerGone() async throws {
        let broker = try await MosquittoBroker.start()
        let command = try BeaconFleetCommand(["coordinator", "--broker", broker.url.description, "--topology", "topology/museum"])
        do {
            try await command.waitForErrors(matching: "coordinator online")
        } catch {
            broker.kill()
            throw error
        }
        broker.kill()
        try await command.waitForErrors(matching: "MQTT connection lost")
        kill(command.process.processIdentifier, SIGTERM)
        #expect(try await command.waitForExit(within: Self.prompt) == 0)
    }
}
