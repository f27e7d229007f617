import Foundation
import Logging
import MQTT
import ServiceLifecycle
import WireProtocol

/// Partitioned coordinators: the heartbeat, the live set, the subscriptions that follow ownership,
/// and which outputs this member publishes.
extension CoordinatorService {
    /// The subscriptions a member makes whatever it owns: every gateway's status, every phone's
    /// report (a phone's partition is known only from its report), every client's `regions` (the
    /// versions to continue from, and the fence), and every member's status. Sightings follow
    /// ownership (``follow(_:ownership:)``).
    func memberFilters() -> [String] {
        let topics = configuration.topics
        return [topics.allCoordinatorMembers, topics.allGatewayStatus, topics.allClientReports, topics.allClientRegions]
    }

    /// Heartbeats and recomputes the live set until shutdown; on a change, follows it.
    func membershipLoop(_ ownership: PartitionOwnership, metrics: PartitionMetrics) async {
        let tick = Duration.milliseconds(100)
        var sinceHeartbeat = Duration.seconds(1_000)
        let heartbeat = Duration.milliseconds(Int64(ownership.configuration.heartbeat * 1000))
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let change = ownership.refresh() {
                metrics.membershipChanges.increment()
                metrics.live.set(Double(change.live.count))
                metrics.owned.set(Double(change.owned.count))
                let names = { (partitions: [Int]) in partitions.map { ownership.map.names[$0] }.joined(separator: ", ") }
                let text =
                    "membership: live \(change.live.joined(separator: ", ")); owning \(names(change.owned))"
                    + (change.gained.isEmpty ? "" : "; gained \(names(change.gained)) (after \(ownership.configuration.grace) s grace)")
                    + (change.lost.isEmpty ? "" : "; lost \(names(change.lost))")
                logger.info("\(text)")
                await follow(change, ownership: ownership)
                sinceHeartbeat = heartbeat  // say what is owned now
            }
            if sinceHeartbeat >= heartbeat {
                sinceHeartbeat = .zero
                publishMemberStatus(ownership, state: .online)
                metrics.fenced.set(Double(ownership.owned().fenced.count))
            }
            try? await Task.sleep(for: tick)
            sinceHeartbeat += tick
        }
    }

    /// Subscribes to the sightings of the gateways of partitions gained, unsubscribes from lost ones'.
    func follow(_ change: PartitionOwnership.Change, ownership: PartitionOwnership) async {
        let topics = configuration.topics
        for (partitions, subscribe) in [(change.lost, false), (change.gained, true)] {
            for partition in partitions {
                for gateway in ownership.map.gateways(of: partition) {
                    guard let id = Identifier(validating: gateway) else { continue }
                    do {
                        if subscribe {
                            _ = try await client.subscribe(topics.sightings(id), qos: .atLeastOnce)
                        } else {
                            try await client.unsubscribe(topics.sightings(id))
                        }
                    } catch {
                        logger.warning("cannot \(subscribe ? "subscribe to" : "unsubscribe from") \(topics.sightings(id)): \(error)")
                    }
                }
            }
        }
    }

    /// Publishes this member's status (retained): its heartbeat.
    func publishMemberStatus(_ ownership: PartitionOwnership, state: CoordinatorStatus.State) {
        guard let member = Identifier(validating: ownership.member) else { return }
        let owned = state == .online ? ownership.owned().owned.map { ownership.map.names[$0] } : []
        let status = CoordinatorMemberStatus(
            member: ownership.member, state: state, venue: ownership.map.venue, partitions: owned,
            heartbeat: ownership.configuration.heartbeat, time: Date())
        guard let payload = try? WireCoding.encode(status) else { return }
        do {
            try client.enqueue(topic: configuration.topics.coordinatorMember(member), payload: payload, qos: .atLeastOnce, retain: true)
        } catch {
            logger.warning("cannot publish the member status: \(error)")
        }
    }

    /// Notes a member status received on the network thread; `false` for any other message.
    func noteMember(_ message: MQTTMessage, ownership: PartitionOwnership) -> Bool {
        guard configuration.topics.coordinatorMember(in: message.topic) != nil else { return false }
        if !message.payload.isEmpty,
            let status = try? WireCoding.decode(CoordinatorMemberStatus.self, from: message.payload, topic: message.topic)
        {
            ownership.note(status, retained: message.retain)
        }
        return true
    }

    /// The outputs this member publishes, stamped with its member id: those of clients in the
    /// partitions it serves now (owned, past the grace, not fenced).
    func serving(_ outputs: [CoordinatorOutput], ownership: PartitionOwnership, metrics: PartitionMetrics) -> [CoordinatorOutput] {
        let now = Date()
        var kept: [CoordinatorOutput] = []
        kept.reserveCapacity(outputs.count)
        for output in outputs {
            guard ownership.serves(ownership.partition(of: output), now: now) else {
                metrics.withheld.increment()
                continue
            }
            if case .regions(let client, var message) = output {
                message.coordinator = ownership.member
                kept.append(.regions(client: client, message))
            } else {
                kept.append(output)
            }
        }
        return kept
    }
}
