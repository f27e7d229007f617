import Foundation
import WireProtocol

/// The verdicts of `scripts/partition-check` on one walk: what a monitor subscribed to every
/// client topic recorded (`mosquitto_sub -F '%U %r %t %p'`: arrival time, retained flag, topic,
/// payload, one message a line) and each venue's `simulate --json` report, judged against the same
/// walk without faults.
///
/// - **versions**: every client's `regions` versions only increase. A payload seen before is a
///   copy (a member's live QoS 0 copy beside its retained set, a QoS 1 redelivery): left out, counted.
/// - **answers**: per client, from the first report carrying region events after an answer to the
///   next answer (a `regions` or `events` message); p99 within ``answerP99Limit``, all within
///   ``answerLimit``. A report seen before (a copy, a relay) is not a new one.
/// - **fence**: one token, one member; within a partition, every set under a lower token was
///   decided (its `time`) before the first set under a higher one; every set carries a member id and a token.
/// - **coverage**: each venue's coverage within 1 point of the walk without faults.
public struct PartitionCheck: Sendable {
    /// One recorded message.
    public struct Message: Sendable, Equatable {
        /// When it arrived, in seconds (from any origin: only differences count).
        public var at: Double
        public var retained: Bool
        public var topic: String
        public var payload: String

        /// A message recorded at `at` seconds.
        public init(at: Double, retained: Bool, topic: String, payload: String) {
            self.at = at
            self.retained = retained
            self.topic = topic
            self.payload = payload
        }
    }

    /// A venue's coverage: entries covered and entries.
    public struct Coverage: Sendable, Equatable {
        public var covered: Int
        public var entries: Int
        public var percent: Double? { entries == 0 ? nil : 100 * Double(covered) / Double(entries) }
        public init(covered: Int, entries: Int) {
            self.covered = covered
            self.entries = entries
        }
    }

    public static let answerP99Limit = 3.0
    public static let answerLimit = 10.0

    /// Level groups per topic prefix (`pc-mall` → `["L1", "L2"]` groups): a set's partition is its
    /// position's level group; a prefix not listed is one partition.
    public var partitions: [String: [[String]]]

    public init(partitions: [String: [[String]]] = [:]) {
        self.partitions = partitions
    }

    /// Parses a monitor log; lines that are not `time retained topic payload` are skipped.
    public static func parse(log text: String) -> [Message] {
        text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, let at = Double(parts[0]) else { return nil }
            return Message(at: at, retained: parts[1] == "1", topic: String(parts[2]), payload: String(parts[3]))
        }
    }

    /// One verdict: its name, whether it passed (`nil`: nothing was measured) and its figures.
    public struct Verdict: Sendable, CustomStringConvertible {
        public var name: String
        public var passed: Bool?
        public var text: String
        public var description: String {
            "\(name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(passed.map { $0 ? "PASS" : "FAIL" } ?? "NOT MEASURED"): \(text)"
        }
    }

    /// Judges a walk's `messages` and `coverage` (by venue) against the `baseline` coverage.
    public func verdicts(_ messages: [Message], coverage: [String: Coverage], baseline: [String: Coverage]) -> [Verdict] {
        struct Set {
            var at: Double
            var message: RegionsMessage
            var prefix: String
        }
        var byClient: [String: [Message]] = [:]
        var end = 0.0
        for message in messages where !message.retained {
            end = max(end, message.at)
            let levels = message.topic.split(separator: "/")
            guard levels.count == 5, levels[1] == "v1", levels[2] == "clients" else { continue }
            byClient["\(levels[0])/\(levels[3])", default: []].append(message)
        }
        var decreases: [String] = []
        var copies = 0
        var sets: [Set] = []
        var gaps: [(wait: Double, client: String)] = []
        for (client, list) in byClient.sorted(by: { $0.key < $1.key }) {
            let list = list.sorted { $0.at < $1.at }
            let prefix = String(client.split(separator: "/")[0])
            var seen = Swift.Set<String>()
            var last: UInt64 = 0
            for message in list where message.topic.hasSuffix("/regions") && !message.payload.isEmpty {
                guard seen.insert(message.payload).inserted else {
                    copies += 1
                    continue
                }
                guard let regions = try? WireCoding.decode(RegionsMessage.self, from: Array(message.payload.utf8), topic: message.topic)
                else { continue }
                if regions.version <= last { decreases.append("\(client) \(last)->\(regions.version)") }
                last = max(last, regions.version)
                sets.append(Set(at: message.at, message: regions, prefix: prefix))
            }
            // Answers: a stretch runs from the first new report with region events after an answer to the next answer.
            var waiting: Double?
            var reports = Swift.Set<String>()
            for message in list {
                if message.topic.hasSuffix("/report") {
                    guard reports.insert(message.payload).inserted else { continue }
                    if waiting == nil, !message.payload.contains("\"events\":[]") { waiting = message.at }
                } else if message.topic.hasSuffix("/regions") || message.topic.hasSuffix("/events") {
                    if let start = waiting { gaps.append((message.at - start, client)) }
                    waiting = nil
                }
            }
            if let start = waiting, end - start > Self.answerLimit { gaps.append((end - start, "\(client) (no answer by the end)")) }
        }
        let measured = !sets.isEmpty && !gaps.isEmpty
        let clientsWithSets = byClient.values.filter { $0.contains { $0.topic.hasSuffix("/regions") && !$0.payload.isEmpty } }.count
        var verdicts: [Verdict] = []
        verdicts.append(
            Verdict(
                name: "versions", passed: measured ? decreases.isEmpty : nil,
                text: "\(sets.count) live regions messages for \(clientsWithSets) clients, \(decreases.count) not above the previous"
                    + (decreases.isEmpty ? "" : " (\(decreases.prefix(5).joined(separator: "; ")))")
                    + (copies > 0 ? "; \(copies) copies of earlier sets left out" : "")))
        let sorted = gaps.sorted { $0.wait > $1.wait }
        let worst = sorted.first ?? (0, "-")
        let p99 = sorted.isEmpty ? 0 : sorted[max(0, Int(Double(sorted.count) * 0.01) - 1)].wait
        verdicts.append(
            Verdict(
                name: "answers", passed: measured ? (p99 <= Self.answerP99Limit && worst.wait <= Self.answerLimit) : nil,
                text: String(
                    format: "p99 %.1f s (limit %.0f), longest %.1f s (%@; limit %.0f) over %d answered stretches", p99, Self.answerP99Limit,
                    worst.wait, worst.client, Self.answerLimit, sorted.count)))
        verdicts.append(fence(sets.map { ($0.message, $0.prefix) }, measured: measured))
        var coverageOK = true
        var parts: [String] = []
        for venue in baseline.keys.sorted() {
            guard let now = coverage[venue], let nowPercent = now.percent, let thenPercent = baseline[venue]?.percent else {
                coverageOK = false
                parts.append("\(venue) missing")
                continue
            }
            let delta = nowPercent - thenPercent
            if abs(delta) > 1 { coverageOK = false }
            parts.append(String(format: "%@ %.2f%% (%d/%d; %+.2f points)", venue, nowPercent, now.covered, now.entries, delta))
        }
        verdicts.append(Verdict(name: "coverage", passed: coverageOK, text: parts.joined(separator: ", ")))
        return verdicts
    }

    /// The fence verdict on sets in arrival order, with their topic prefixes.
    func fence(_ sets: [(message: RegionsMessage, prefix: String)], measured: Bool) -> Verdict {
        var problems: [String] = []
        var holders: [UInt64: String] = [:]
        // Per partition, per token: the first and last decision time.
        var spans: [String: [UInt64: (first: Double, last: Double)]] = [:]
        var unmarked = 0
        for (message, prefix) in sets {
            guard let token = message.token, let member = message.coordinator else {
                unmarked += 1
                continue
            }
            if let holder = holders[token], holder != member { problems.append("token \(token) used by \(holder) and \(member)") }
            holders[token] = member
            // A set names the partition its token is for; one that does not (an older member) is
            // placed by its position's level; without either it cannot be placed in a level group
            // (a lone partition can).
            guard let decided = message.time?.timeIntervalSince1970,
                message.partition != nil || message.position != nil || partitions[prefix] == nil
            else { continue }
            let partition = partition(prefix: prefix, named: message.partition, level: message.position?.level)
            let span = spans[partition, default: [:]][token] ?? (decided, decided)
            spans[partition, default: [:]][token] = (min(span.first, decided), max(span.last, decided))
        }
        for (partition, tokens) in spans.sorted(by: { $0.key < $1.key }) {
            let ordered = tokens.sorted { $0.key < $1.key }
            for (a, b) in zip(ordered, ordered.dropFirst()) where a.value.last > b.value.first {
                problems.append(
                    String(
                        format: "%@: token %llu decided until %.2f s after token %llu began", partition, a.key,
                        a.value.last - b.value.first, b.key))
            }
        }
        let handovers = spans.values.reduce(0) { $0 + max(0, $1.count - 1) }
        return Verdict(
            name: "fence", passed: measured ? problems.isEmpty && unmarked == 0 : nil,
            text: "\(holders.count) tokens, \(handovers) handovers, \(problems.count) overlaps or shared tokens"
                + (problems.isEmpty ? "" : " (\(problems.prefix(5).joined(separator: "; ")))")
                + (unmarked > 0 ? "; \(unmarked) sets without a member id or token" : ""))
    }

    /// The partition of a set published under `prefix` naming partition `named` (`venue:L1+L2`, its
    /// `partition`), else placing the client on `level`.
    func partition(prefix: String, named: String?, level: String?) -> String {
        if let named { return named.split(separator: ":", maxSplits: 1).dropFirst().first.map { "\(prefix):\($0)" } ?? prefix }
        guard let groups = partitions[prefix], let level, let group = groups.first(where: { $0.contains(level) }) else { return prefix }
        return "\(prefix):\(group.joined(separator: "+"))"
    }

    /// Parses `prefix=L1,L2|L3` into ``partitions``' form.
    public static func parsePartitions(_ spec: String) -> (prefix: String, groups: [[String]])? {
        let parts = spec.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), parts[1].split(separator: "|").map { $0.split(separator: ",").map(String.init) })
    }
}
