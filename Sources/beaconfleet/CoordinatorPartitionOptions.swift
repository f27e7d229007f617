import ArgumentParser
import Coordinator
import Etcd
import Foundation

/// `beaconfleet coordinator`'s options for running several coordinators per venue (docs/partitioning.md).
struct CoordinatorPartitionOptions: ParsableArguments {
    @Option(
        help:
            "etcd that decides membership and ownership: etcd://host:2379[,host:2379…] (etcds:// for TLS; user:password@ before the hosts). Makes this coordinator a member: it shares the venue with the others started so on this broker and prefix, each owning some partitions."
    )
    var coordination: String?

    @Flag(help: "Be a member (needs --coordination; implied by it).")
    var partitioned = false

    @Option(help: "Partitions as groups of level ids, e.g. '0|1' or '0,1|2' (default: the venue is one partition).")
    var partitions: String?

    @Option(help: "This member's id (letters, digits, '_' and '-'; unique per process). Default: host-pid-random.")
    var memberId: String?

    @Option(
        help:
            "Seconds a member's lease lives without renewal (renewed every third of it: every second at 3): how long a crashed member holds its partitions."
    )
    var leaseTtl: Int = 3

    func validate() throws {
        guard (2...60).contains(leaseTtl) else { throw ValidationError("--lease-ttl must be 2 to 60 seconds") }
        if coordination == nil, partitioned || partitions != nil || memberId != nil {
            throw ValidationError(
                "--partitioned, --partitions and --member-id need --coordination etcd://host:2379,… (docs/partitioning.md)")
        }
        _ = try configuration()
    }

    func configuration(member: String? = nil) throws -> PartitionConfiguration? {
        guard let coordination else { return nil }
        let endpoints: EtcdEndpoints
        do {
            endpoints = try EtcdEndpoints(parsing: coordination)
        } catch {
            throw ValidationError("--coordination: \(error)")
        }
        do {
            var configuration = try PartitionConfiguration(
                member: member ?? memberId ?? PartitionConfiguration.randomMember(), spec: partitions, coordination: endpoints)
            configuration.leaseTTL = Int64(leaseTtl)
            configuration.renewal = .milliseconds(leaseTtl * 1000 / 3)
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
