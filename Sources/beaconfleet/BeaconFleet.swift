import AgentCommandLine
import ArgumentParser
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
            TopologyCommand.self,
            SimulateCommand.self,
            WatchCommand.self,
        ]
    )

    /// `beaconfleet agent …` becomes the small `beaconfleet-agent` binary when it is installed
    /// beside this one (see ``AgentExecutable``); everything else runs here.
    static func main() async {
        AgentExecutable.replaceProcessIfRequested(arguments: CommandLine.arguments)
        await main(nil)
    }
}
