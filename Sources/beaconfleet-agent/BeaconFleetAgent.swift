import AgentCommandLine
import ArgumentParser
import MQTT

/// `beaconfleet-agent`: the gateway agent on its own, the binary a Raspberry Pi gateway runs.
///
/// It takes exactly the flags of `beaconfleet agent` (which hands over to it when both are
/// installed side by side): `beaconfleet-agent --broker … --gateway … --adapter hci0` and
/// `beaconfleet-agent agent --broker …` are the same. It links the agent alone, and release builds
/// link the Swift runtime statically and without position-independent relocations (see
/// Package.swift), which keeps the whole process under the agent's 20 MB memory budget.
@main
struct BeaconFleetAgent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beaconfleet",
        abstract: "The BeaconFleet gateway agent (the same as `beaconfleet agent`).",
        discussion: """
            Flags, configuration keys and examples: `beaconfleet-agent agent --help`. Without a \
            subcommand the flags go to the agent: `beaconfleet-agent --broker mqtt://broker:1883 \
            --gateway gw-1 --adapter hci0`.
            """,
        subcommands: [AgentCommand.self],
        defaultSubcommand: AgentCommand.self
    )

    static func main() async {
        // glibc gives every thread that allocates its own malloc arena; the agent's few threads
        // (network, pipeline, concurrency pool) each kept a mostly empty one resident. One arena
        // is plenty for a process that allocates a window's batch per second.
        GlibcMalloc.set(.arenaMaximum, 1)
        await main(nil)
    }
}
