import Foundation

/// Phone reports a partitioned member received but did not apply (it did not serve their
/// partition then), kept for a short while so that a member that gains the partition answers the
/// ones nobody answered.
///
/// Between a member's loss and its successor's grace end, nobody serves its partitions (a NATS
/// node kill cut the owner off for 5–11 s in `scripts/partition-check`); a suspended phone that
/// reported a region event then may not wake again for a long time, so its report must not be lost.
struct HeldReports: Sendable {
    struct Held: Sendable {
        var received: Date
        var partition: Int
        var inbound: InboundMessage
    }

    /// How long a report is kept: a member timeout plus the grace, with room.
    var window: TimeInterval = 15
    /// The most reports kept per client (its newest), and the most clients.
    var perClient = 16
    var clientLimit = 20_000
    private(set) var byClient: [String: [Held]] = [:]

    /// Keeps `inbound`, a report of `client` in `partition` not applied at `now`.
    mutating func hold(_ inbound: InboundMessage, client: String, partition: Int, now: Date) {
        guard byClient[client] != nil || byClient.count < clientLimit else { return }
        var held = byClient[client, default: []].filter { now.timeIntervalSince($0.received) <= window }
        held.append(Held(received: now, partition: partition, inbound: inbound))
        if held.count > perClient { held.removeFirst(held.count - perClient) }
        byClient[client] = held
    }

    /// Takes, in arrival order per client, the reports of `partitions` younger than the window
    /// that no other member answered: none published a `regions` message for the client after the
    /// report arrived (`answered(client)`: when the last one arrived). Everything older is dropped.
    mutating func take(partitions: Set<Int>, now: Date, answered: (String) -> Date?) -> [InboundMessage] {
        var taken: [InboundMessage] = []
        for (client, held) in byClient {
            let fresh = held.filter { now.timeIntervalSince($0.received) <= window }
            let answeredAt = answered(client) ?? .distantPast
            let mine = fresh.filter { partitions.contains($0.partition) }
            taken += mine.filter { $0.received > answeredAt }.map(\.inbound)
            let kept = fresh.filter { !partitions.contains($0.partition) }
            byClient[client] = kept.isEmpty ? nil : kept
        }
        return taken
    }
}
