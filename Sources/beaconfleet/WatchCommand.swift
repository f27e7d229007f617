import ArgumentParser

/// `beaconfleet watch` (placeholder until its issue lands).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "watch", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet watch is not built yet")
    }
}
