import ArgumentParser

/// `beaconfleet coordinator` (placeholder until its issue lands).
struct CoordinatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordinator", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet coordinator is not built yet")
    }
}
