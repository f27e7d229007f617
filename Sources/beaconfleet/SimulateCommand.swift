import ArgumentParser

/// `beaconfleet simulate` (placeholder until its issue lands).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "simulate", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet simulate is not built yet")
    }
}
