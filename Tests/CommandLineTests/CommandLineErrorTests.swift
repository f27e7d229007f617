import Foundation
import TestSupport
import Testing

/// A bad argument to a `beaconfleet` subcommand, run as the built binary, names the cause and
/// prints that subcommand's usage, not the top-level `beaconfleet <subcommand>` one, whether the
/// subcommand refuses it while parsing (`validate()`) or only once it runs (`run()`).
@Suite("beaconfleet: errors from a subcommand", .requiresBeaconFleetBinary, .timeLimit(.minutes(1)))
struct CommandLineErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        /// The subcommand's usage line, as `beaconfleet <subcommand> --help` prints it.
        let usage: String
        /// Part of the cause the error must name.
        let cause: String
        var testDescription: String { arguments.joined(separator: " ") }

        /// `subcommand` (its words) run with `options`.
        init(_ subcommand: String, _ options: [String], cause: String) {
            arguments = subcommand.split(separator: " ").map(String.init) + options
            usage = CommandLineErrorTests.usages[subcommand]!
            self.cause = cause
        }
    }

    static let museum = SharedData.packageRoot.appendingPathComponent("topology/museum").path

    static let usages = [
        "coordinator": "Usage: beaconfleet coordinator [<options>] --broker <broker> --topology <topology>",
        "simulate": "Usage: beaconfleet simulate <options>",
        "watch": "Usage: beaconfleet watch --broker <broker>",
        "topology export": "Usage: beaconfleet topology export <directory> [--out <out>]",
    ]

    static let cases: [Case] = [
        // Thrown from `run()`: these printed `Usage: beaconfleet <subcommand>` before.
        Case(
            "coordinator", ["--broker", "nope://broker", "--topology", museum], cause: "Error: --broker nope://broker: invalid broker URL"),
        Case(
            "coordinator", ["--broker", "mqtt://127.0.0.1:1", "--topology", "/nonexistent-venue"],
            cause: "Error: --topology /nonexistent-venue: no such directory"),
        Case(
            "coordinator",
            ["--broker", "mqtt://127.0.0.1:1", "--topology", museum, "--http", "9090", "--http-token-file", "/nonexistent-token"],
            cause: "Error: cannot read the HTTP token file /nonexistent-token"),
        Case("simulate", ["--broker", "nope://broker", "--topology", museum], cause: "Error: --broker nope://broker: invalid broker URL"),
        Case("watch", ["--broker", "mqtt://127.0.0.1:1", "--prefix", "a/#"], cause: "Error: --prefix a/#:"),
        Case(
            "topology export", [museum, "--out", "/nonexistent-directory/venue.json"],
            cause: "Error: cannot write /nonexistent-directory/venue.json"),
        // Refused by `validate()`: ArgumentParser's own path, which must say the same.
        Case(
            "coordinator", ["--broker", "mqtt://127.0.0.1:1", "--topology", museum, "--budget", "30"],
            cause: "Error: --budget 30: must be 1…20"),
        Case(
            "coordinator", ["--broker", "mqtt://127.0.0.1:1", "--topology", museum, "--http", "localhost"],
            cause: "Error: --http localhost: expected PORT or HOST:PORT"),
        Case(
            "coordinator", ["--broker", "mqtt://127.0.0.1:1", "--topology", museum, "--home-assistant", "--home-assistant-prefix", "ha/#"],
            cause: "Error: --home-assistant-prefix: discovery prefix 'ha/#': must not"),
        Case(
            "simulate", ["--offline", "--topology", museum, "--presence", "tags", "--pause", "20-5"],
            cause: "Error: --pause must be SECONDS or MIN-MAX, from 0 to 3600 s with MIN ≤ MAX, got '20-5'"),
        Case("simulate", ["--offline", "--topology", museum, "--pause", "60"], cause: "Error: --pause needs --presence"),
        Case(
            "simulate", ["--offline", "--topology", museum, "--presence", "tags", "--misses", "m.csv"],
            cause: "Error: --misses needs --offline phones (not --presence or --gain-error)"),
        // --presence phones draws its phones from the family --phones changes too (it once ignored --phones).
        Case(
            "simulate", ["--offline", "--topology", museum, "--presence", "phones", "--phones", "nope=1"],
            cause: "Error: phones: 'nope=1' is not NAME=VALUE"),
    ]

    @Test("exits 64 with the cause and the subcommand's usage on stderr", arguments: cases)
    func subcommandUsage(_ example: Case) async throws {
        let (status, _, standardError) = try await BeaconFleetCommand.run(example.arguments, within: .seconds(50))
        #expect(status == 64)
        #expect(standardError.contains(example.cause), "stderr: \(standardError)")
        #expect(standardError.contains(example.usage), "stderr: \(standardError)")
        #expect(!standardError.contains("Usage: beaconfleet <subcommand>"), "stderr: \(standardError)")
    }
}
