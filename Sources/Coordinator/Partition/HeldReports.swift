import Foundation

/// Phone reports a partitioned member received but did not apply (it did not serve their
/// partition then), kept for a short while so that a member that gains the partition answers the
/// ones nobody answered.
///
/// Between a member's loss and its successor's claim nobody serves its partitions, and a suspended
/// phone that reported a region event then may not wake again for a long time.
struct HeldReports: Sendable {
    struct Held: Sendable {
        var received: Date
        var partition: Int
        var inbound: InboundMessage
        /// Whether ``relays(now:answered:owned:)`` handed it out already.
        var relayed = false

        /// Whether `answer` (another member's last `regions` message for the client: when it
        /// arrived, and where it placed the client) came after this report, in its partition. A set
        /// placing the client elsewhere answered an earlier report (a phone crossing partitions).
        func isAnswered(by answer: (at: Date, partition: Int)?) -> Bool {
            answer.map { $0.partition == partition && $0.at > received } ?? false
        }
    }

    /// The reports of `held` younger than the window at `now`.
    private func fresh(_ held: [Held], now: Date) -> [Held] {
        held.filter { now.timeIntervalSince($0.received) <= window }
    }

    /// How long a report is kept: a lease's TTL and a broker failover, with room.
    var window: TimeInterval = 15
    /// The most reports kept per client (its newest), and the most clients.
    var perClient = 16
    var clientLimit = 20_000
    private(set) var byClient: [String: [Held]] = [:]
    /// The clients ``take(now:answered:owned:ready:)`` looks at (not every phone of the venue): held
    /// in a partition this member owns, or in one it has just gained (``due(partitions:now:)``).
    private(set) var due: Set<String> = []
    /// A report waits this long for an answer before it is relayed (``relays(now:answered:owned:)``).
    var relayAfter: TimeInterval = 3
    /// When the live set or this member's partitions last changed (``noteChange(at:)``).
    private(set) var changed: Date?

    /// The last status of another member that owns partitions: when it arrived, and which.
    private(set) var status: (at: Date, partitions: Set<Int>)?

    /// The membership changed at `now`: the reports held around it may have reached no member
    /// that will serve them.
    mutating func noteChange(at now: Date) { changed = now }

    /// Another member said at `now` that it owns `partitions`: it may be back from a broker
    /// failover it rode out in the live set (`CoordinatorService.brokerFailoverGrace`), having
    /// missed the reports sent meanwhile, so the unanswered ones of those partitions received up to
    /// ``relayAfter`` before are relayed at once.
    mutating func noteStatus(partitions: Set<Int>, at now: Date) {
        guard !partitions.isEmpty else { return }
        status = (now, partitions)
    }

    /// Keeps `inbound`, a report of `client` in `partition` not applied at `now`; `owned`: this
    /// member owns the partition (it will serve it soon), so the report is due.
    mutating func hold(_ inbound: InboundMessage, client: String, partition: Int, owned: Bool, now: Date) {
        guard byClient[client] != nil || byClient.count < clientLimit else { return }
        var held = fresh(byClient[client, default: []], now: now)
        held.append(Held(received: now, partition: partition, inbound: inbound))
        if held.count > perClient { held.removeFirst(held.count - perClient) }
        byClient[client] = held
        if owned { due.insert(client) }
    }

    /// `partitions` were gained: their held reports are due; expired ones are dropped.
    mutating func due(partitions: Set<Int>, now: Date) {
        for (client, held) in byClient {
            let kept = fresh(held, now: now)
            byClient[client] = kept.isEmpty ? nil : kept
            if kept.contains(where: { partitions.contains($0.partition) }) { due.insert(client) }
        }
    }

    /// The reports to relay (the same bytes, at QoS 0, on the phone's own report topic) so that a
    /// member that never received them does: in a partition this member does not own, unanswered
    /// (no `regions` message placing the client in the report's partition arrived after it), not
    /// relayed yet, and either
    ///
    /// - held at least ``relayAfter`` and received at most ``relayAfter`` before a membership
    ///   change or after it, or
    /// - in a partition another member's status has just named, and received at most
    ///   ``relayAfter`` before that status (``noteStatus(partitions:at:)``): relayed at once.
    ///
    /// Each is relayed once; members that saw it drop the copy (`RepeatedReports`). Without a
    /// membership change or a status nothing is relayed.
    mutating func relays(now: Date, answered: (String) -> (at: Date, partition: Int)?, owned: (Int) -> Bool) -> [InboundMessage] {
        let changed = changed.flatMap { now.timeIntervalSince($0) <= window + relayAfter ? $0 : nil }
        let status = status.flatMap { now.timeIntervalSince($0.at) <= window ? $0 : nil }
        guard changed != nil || status != nil else { return [] }
        var out: [InboundMessage] = []
        for (client, held) in byClient {
            var held = held
            var touched = false
            let answer = answered(client)
            for i in held.indices where !held[i].relayed && !owned(held[i].partition) {
                let report = held[i]
                let age = now.timeIntervalSince(report.received)
                guard age <= window else { continue }
                let afterChange = changed.map { age >= relayAfter && $0 >= report.received.addingTimeInterval(-relayAfter) } ?? false
                let missed =
                    status.map {
                        $0.partitions.contains(report.partition) && report.received <= $0.at
                            && report.received >= $0.at.addingTimeInterval(-relayAfter)
                    } ?? false
                guard afterChange || missed else { continue }
                held[i].relayed = true
                touched = true
                if !report.isAnswered(by: answer) { out.append(report.inbound) }
            }
            if touched { byClient[client] = held }
        }
        return out
    }

    /// Takes, in arrival order per due client, the reports younger than the window that are `ready`
    /// (by client and partition) and that no other member answered (``Held/isAnswered(by:)``).
    /// Everything older than the window is dropped; a client stays due while it has a report in a
    /// partition this member `owned`.
    mutating func take(
        now: Date, answered: (String) -> (at: Date, partition: Int)?, owned: (Int) -> Bool, ready: (String, Int) -> Bool
    ) -> [InboundMessage] {
        var taken: [InboundMessage] = []
        for client in due {
            let answer = answered(client)
            var kept: [Held] = []
            for report in fresh(byClient[client] ?? [], now: now) {
                if !ready(client, report.partition) {
                    kept.append(report)
                } else if !report.isAnswered(by: answer) {
                    taken.append(report.inbound)
                }
            }
            byClient[client] = kept.isEmpty ? nil : kept
            if !kept.contains(where: { ready(client, $0.partition) || owned($0.partition) }) { due.remove(client) }
        }
        return taken
    }
}
