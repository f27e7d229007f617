import ArgumentParser
import Coordinator
import Foundation

/// `beaconfleet coordinator`'s options for running several coordinators on one broker (docs/coordinator.md,
/// "Partitioned coordinators").
struct CoordinatorPartitionOptions: ParsableArguments {
    @Flag(
        help:
            "Share the venue with the other coordinators started so on this broker and prefix: each owns some partitions (rendezvous hashing over the live members) and takes over a dead one's."
    )
    var partitioned = false

    @Option(help: "Partitions as groups of level ids, e.g. '0|1' or '0,1|2' (implies --partitioned; default: the venue is one partition).")
    var partitions: String?

    @Option(help: "This member's id (letters, digits, '_' and '-'; unique per process). Default: host-pid-random.")
    var memberId: String?

    @Option(help: "Seconds between member heartbeats.")
    var heartbeat: Double = 1

    @Option(help: "Seconds without a heartbeat after which a member counts as gone.")
    var memberTimeout: Double = 6

    func validate() throws {
        guard heartbeat > 0, heartbeat.isFinite else { throw ValidationError("--heartbeat must be a positive number of seconds") }
        guard memberTimeout > heartbeat, memberTimeout.isFinite else {
            throw ValidationError("--member-timeout must be longer than --heartbeat (a few heartbeats)")
        }
        _ = try configuration()
    }

    func configuration(member: String? = nil) throws -> PartitionConfiguration? {
        guard partitioned || partitions != nil || memberId != nil else { return nil }
        do {
            var configuration = try PartitionConfiguration(
                member: member ?? memberId ?? PartitionConfiguration.randomMember(), spec: partitions)
            configuration.heartbeat = heartbeat
            configuration.timeout = memberTimeout
            return configuration
        } catch {
            throw ValidationError("--member-id: \(error)")
        }
    }

    /// Makes `configuration` a member's, when asked to.
    func apply(to configuration: inout CoordinatorConfiguration) throws {
        guard let partitions = try self.configuration() else { return }
        try configuration.partition(partitions)
    }
}
