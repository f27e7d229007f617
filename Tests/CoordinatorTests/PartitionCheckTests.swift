import Foundation
import Simulator
import Testing

/// `scripts/partition-check`'s verdicts (``PartitionCheck``) on a recorded monitor log.
@Suite("Partition check verdicts")
struct PartitionCheckTests {
    /// A `regions` payload as members publish it.
    static func set(
        _ version: UInt64, by member: String, token: UInt64, decided: String, level: String = "L1", partition: String? = nil
    ) -> String {
        #"{"add":[],"budget":20,"coordinator":"\#(member)",\#(partition.map { #""partition":"\#($0)","# } ?? "")"position":{"level":"\#(level)","x":1,"y":2},"reason":"moved","regions":[],"remove":[],"time":"2026-11-24T13:40:\#(decided)Z","token":\#(token),"v":1,"version":\#(version)}"#
    }

    static let report = #"{"events":[{"region":"L1-shop-1","type":"enter"}],"v":1}"#
    static let quiet = #"{"events":[],"v":1}"#

    /// A handover of `pc-mall`'s L1 from c1 (token 5) to c2 (token 9), recorded as mosquitto_sub prints it.
    static let log = [
        "100.0 0 pc-mall/v1/clients/p1/report \(report)",
        "100.2 0 pc-mall/v1/clients/p1/regions \(set(10, by: "c1", token: 5, decided: "00.200"))",
        "100.3 0 pc-mall/v1/clients/p1/regions \(set(10, by: "c1", token: 5, decided: "00.200"))",  // the live copy
        "101.0 1 pc-mall/v1/clients/p1/regions \(set(10, by: "c1", token: 5, decided: "00.200"))",  // retained on resubscribing
        "104.0 0 pc-mall/v1/clients/p1/report \(quiet)",
        "105.0 0 pc-mall/v1/clients/p1/report \(report.replacingOccurrences(of: "shop-1", with: "shop-2"))",
        "107.5 0 pc-mall/v1/clients/p1/regions \(set(1_800_000_000_000, by: "c2", token: 9, decided: "07.500"))",
        "108.0 0 pc-mall/v1/clients/p2/report \(report)",
        "108.4 0 pc-mall/v1/clients/p2/events {\"client\":\"p2\",\"type\":\"enter\",\"region\":\"L1-shop-1\",\"time\":\"2026-11-24T13:40:08.400Z\"}",
        "not a line of the monitor",
    ].joined(separator: "\n")

    let check = PartitionCheck(partitions: ["pc-mall": [["L1"], ["L2"]]])
    let coverage = ["mall": PartitionCheck.Coverage(covered: 70, entries: 74)]

    func verdicts(_ log: String, coverage: [String: PartitionCheck.Coverage]? = nil) -> [String: PartitionCheck.Verdict] {
        let list = check.verdicts(PartitionCheck.parse(log: log), coverage: coverage ?? self.coverage, baseline: self.coverage)
        return Dictionary(uniqueKeysWithValues: list.map { ($0.name, $0) })
    }

    @Test("a clean handover passes: copies and retained messages left out, the 2.5 s wait across it counted")
    func cleanHandover() {
        let result = verdicts(Self.log)
        #expect(result.values.allSatisfy { $0.passed == true }, "\(result.values.map(\.description))")
        #expect(result["versions"]?.text.contains("2 live regions messages for 1 clients, 0 not above") == true)
        #expect(result["versions"]?.text.contains("1 copies") == true)
        #expect(result["answers"]?.text.contains("longest 2.5 s") == true)
        #expect(result["fence"]?.text.contains("2 tokens, 1 handovers, 0 overlaps") == true)
    }

    @Test("a version not above the previous fails the versions verdict")
    func versionBack() {
        let log = Self.log + "\n109.0 0 pc-mall/v1/clients/p1/regions \(Self.set(11, by: "c2", token: 9, decided: "09.000"))"
        #expect(verdicts(log)["versions"]?.passed == false)
    }

    @Test("the fence: the old token decided after the new one began, or one token from two members, fails")
    func overlap() {
        let late = Self.log + "\n109.0 0 pc-mall/v1/clients/p3/regions \(Self.set(20, by: "c1", token: 5, decided: "08.000"))"
        #expect(verdicts(late)["fence"]?.passed == false)
        let shared = Self.log + "\n109.0 0 pc-mall/v1/clients/p3/regions \(Self.set(20, by: "c3", token: 9, decided: "09.000"))"
        #expect(verdicts(shared)["fence"]?.text.contains("token 9 used by c2 and c3") == true)
        // The other level's partition has tokens of its own: no overlap with L1's.
        let otherLevel =
            Self.log + "\n109.0 0 pc-mall/v1/clients/p3/regions \(Self.set(20, by: "c3", token: 7, decided: "01.000", level: "L2"))"
        #expect(verdicts(otherLevel)["fence"]?.passed == true)
        // A set placed on L2 that names L1's partition is L1's: under a token below c2's, decided
        // after c2 began, it overlaps; naming L2 it does not.
        let named = { (partition: String) in
            Self.log
                + "\n109.0 0 pc-mall/v1/clients/p3/regions \(Self.set(20, by: "c1", token: 5, decided: "08.000", level: "L2", partition: partition))"
        }
        #expect(verdicts(named("mall:L1"))["fence"]?.passed == false)
        #expect(verdicts(named("mall:L2"))["fence"]?.passed == true)
    }

    @Test("answers: a report unanswered past 10 s fails, and so does a p99 above 3 s")
    func answers() {
        let unanswered =
            Self.log + "\n110.0 0 pc-mall/v1/clients/p4/report \(Self.report)\n125.0 0 pc-mall/v1/clients/p9/report \(Self.quiet)"
        let result = verdicts(unanswered)
        #expect(result["answers"]?.passed == false)
        #expect(result["answers"]?.text.contains("no answer by the end") == true)
        let slow =
            Self.log
            + "\n110.0 0 pc-mall/v1/clients/p4/report \(Self.report)\n114.0 0 pc-mall/v1/clients/p4/regions \(Self.set(30, by: "c2", token: 9, decided: "14.000"))"
        #expect(verdicts(slow)["answers"]?.passed == false, "4 s is the p99 of three stretches")
    }

    @Test("coverage more than a point below the walk without faults fails; nothing recorded is not measured")
    func coverageAndNothing() {
        #expect(verdicts(Self.log, coverage: ["mall": .init(covered: 68, entries: 74)])["coverage"]?.passed == false)
        #expect(verdicts("")["versions"]?.passed == nil)
    }
}
