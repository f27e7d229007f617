import ArgumentParser

/// `beaconfleet topology` (placeholder until its issue lands).
struct TopologyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "topology", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet topology is not built yet")
    }
}
