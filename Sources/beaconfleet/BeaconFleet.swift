import ArgumentParser

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
}

/// The version every role reports in its status messages.
enum BeaconFleetVersion {
    static let current = "0.1.0"
}
