import ArgumentParser

/// `beaconfleet decode` (placeholder until its issue lands).
struct DecodeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "decode", abstract: "Not built yet.")

    func run() async throws {
        throw ValidationError("beaconfleet decode is not built yet")
    }
}
