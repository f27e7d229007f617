import AgentCommandLine
import ArgumentParser
import Foundation
import WireProtocol

/// `beaconfleet`: one command-line tool, one subcommand per role.
@main
struct BeaconFleet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beaconfleet",
        abstract: "Run thousands of iBeacon regions for iPhone apps that can monitor only 20.",
        discussion: """
            Agents on gateways hear beacons and publish sightings over MQTT; the coordinator keeps, \
            for every phone, the regions nearest by walking distance within its 20-region budget.

            Start with `beaconfleet demo`: a local broker, the coordinator on the example museum, \
            replaying gateways and walking phones, all in one process tree.
            """,
        version: BeaconFleetVersion.current,
        subcommands: [
            DemoCommand.self,
            DecodeCommand.self,
            AgentCommand.self,
            CoordinatorCommand.self,
            PlanCommand.self,
            CalibrateCommand.self,
            TopologyCommand.self,
            SimulateCommand.self,
            WatchCommand.self,
            CredentialsCommand.self,
            PartitionVerdictsCommand.self,
        ]
    )

    /// `beaconfleet agent …` becomes the small `beaconfleet-agent` binary when it is installed
    /// beside this one (see ``AgentExecutable``); everything else runs here.
    ///
    /// Parsing and running are ArgumentParser's own `main`, except for how an error thrown from a
    /// subcommand's `run()` is reported: ArgumentParser reports those against the root command, so
    /// a bad `--broker` given to `coordinator` printed `Usage: beaconfleet <subcommand>`. Here a
    /// `ValidationError` from `run()` prints the cause and the usage of the subcommand that threw
    /// it, exactly as one from its `validate()` does.
    static func main() async {
        AgentExecutable.replaceProcessIfRequested(arguments: CommandLine.arguments)
        // Before any other thread allocates: a glibc thread keeps the arena its first allocation
        // gave it. Every subcommand gets it; only the coordinator's bursts of payloads need it.
        HeapRetention.useOneArena()
        var command: any ParsableCommand
        do {
            command = try await asyncParseAsRoot(nil)
        } catch {
            exit(withError: error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(from: type(of: command), withError: error)
        }
    }

    /// Reports `error`, thrown by `subcommand`'s `run()`, and exits: a `ValidationError` with the
    /// subcommand's usage (status 64, as ArgumentParser does for a parsing error), anything else
    /// as ArgumentParser would (`CleanExit`, `ExitCode`, or `Error: …` with status 1).
    static func exit(from subcommand: any ParsableCommand.Type, withError error: any Error) -> Never {
        guard let validation = error as? ValidationError, let path = commandPath(to: subcommand) else {
            exit(withError: error)
        }
        let usage = usageString(for: subcommand).replacingOccurrences(of: "\n", with: "\n       ")
        let text = """
            Error: \(validation.message)
            Usage: \(usage)
              See '\(path.joined(separator: " ")) --help' for more information.

            """
        FileHandle.standardError.write(Data(text.utf8))
        Foundation.exit(ExitCode.validationFailure.rawValue)
    }

    /// The command names from `beaconfleet` down to `target` (`["beaconfleet", "topology",
    /// "check"]`), or nil when `target` is not in the tree (ArgumentParser's built-in commands).
    static func commandPath(to target: any ParsableCommand.Type, from root: any ParsableCommand.Type = BeaconFleet.self) -> [String]? {
        if ObjectIdentifier(root) == ObjectIdentifier(target) { return [root._commandName] }
        for subcommand in root.configuration.subcommands {
            if let rest = commandPath(to: target, from: subcommand) { return [root._commandName] + rest }
        }
        return nil
    }
}
