import ArgumentParser

/// `beaconfleet plan` (placeholder until its issue lands).
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plan", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet plan is not built yet")
    }
}
