import ArgumentParser
import Foundation
import Simulator

/// `beaconfleet partition-verdicts`: the verdicts of one `scripts/partition-check` walk (``PartitionCheck``).
struct PartitionVerdictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "partition-verdicts",
        abstract: "Judge one partition-check walk: versions, answers, fence, coverage (scripts/partition-check runs it).",
        discussion: """
            WALK and BASELINE are walk directories as scripts/partition-check leaves them: monitor.log \
            (mosquitto_sub -F '%U %r %t %p' of every client topic) and one simulate --json report per \
            venue (VENUE.json). Prints four verdicts; exits 1 when one fails or measured nothing.
            """)

    @Argument(help: "The walk to judge.")
    var walk: String

    @Option(help: "The same walk without faults (its coverage is the reference).")
    var baseline: String

    @Option(help: "Venues whose coverage is compared (their VENUE.json reports).")
    var venues: [String] = ["museum", "mall"]

    @Option(help: "Level groups of a topic prefix: PREFIX=L1|L2 (repeatable); other prefixes are one partition.")
    var partitions: [String] = []

    func run() throws {
        var check = PartitionCheck()
        for spec in partitions {
            guard let (prefix, groups) = PartitionCheck.parsePartitions(spec) else {
                throw ValidationError("--partitions \(spec): expected PREFIX=L1|L2")
            }
            check.partitions[prefix] = groups
        }
        let log = (try? String(contentsOfFile: "\(walk)/monitor.log", encoding: .utf8)) ?? ""
        let verdicts = check.verdicts(PartitionCheck.parse(log: log), coverage: coverage(walk), baseline: coverage(baseline))
        for verdict in verdicts { print(verdict) }
        if verdicts.contains(where: { $0.passed != true }) { throw ExitCode(1) }
    }

    private func coverage(_ directory: String) -> [String: PartitionCheck.Coverage] {
        var result: [String: PartitionCheck.Coverage] = [:]
        for venue in venues {
            guard let data = FileManager.default.contents(atPath: "\(directory)/\(venue).json"),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let covered = json["coveredEntries"] as? Int, let entries = json["entries"] as? Int
            else { continue }
            result[venue] = PartitionCheck.Coverage(covered: covered, entries: entries)
        }
        return result
    }
}
