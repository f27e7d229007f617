import ArgumentParser

/// `beaconfleet agent` (placeholder until its issue lands).
struct AgentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "agent", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet agent is not built yet")
    }
}
