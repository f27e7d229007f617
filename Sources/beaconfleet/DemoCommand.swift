import ArgumentParser

/// `beaconfleet demo` (placeholder until its issue lands).
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet demo is not built yet")
    }
}
