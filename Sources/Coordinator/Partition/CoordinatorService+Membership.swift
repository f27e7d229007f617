import Etcd
import Foundation
import Logging
import Synchronization
import MQTT
import ServiceLifecycle
import WireProtocol

/// Partitioned coordinators: membership and ownership in etcd (``Etcd/EtcdElection``), the
/// subscriptions that follow ownership, and which outputs this member publishes.
extension CoordinatorService {
    /// The subscriptions a member makes whatever it owns: gateways' statuses, phones' reports (a
    /// phone's partition is known only from its report), clients' `regions` (versions and the
    /// fence) and members' statuses (``HeldReports/noteStatus(partitions:at:)``). Sightings follow
    /// ownership (``follow(_:ownership:)``).
    func memberFilters() -> [String] {
        let topics = configuration.topics
        return [topics.allGatewayStatus, topics.allClientReports, topics.allClientRegions, topics.allCoordinatorMembers]
    }

    /// Runs the coordination in etcd until shutdown and follows its changes; beside it, the broker
    /// connection (``BrokerAbsence``) and, every 100 ms, the held reports and the fences.
    func membershipLoop(_ ownership: PartitionOwnership, coordination: EtcdElection<PartitionOwnership>, metrics: PartitionMetrics) async {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                // Following a change (subscribing) waits for the broker: done beside the coordination,
                // one change after another, so a member whose broker is gone still decides and stops.
                let following = Mutex<Task<Void, Never>?>(nil)
                group.addTask { [self] in
                    await coordination.run { change in
                        await self.changed(change, ownership: ownership, metrics: metrics)
                        following.withLock { current in
                            current = Task<Void, Never> { [previous = current, self] in
                                await previous?.value
                                await self.follow(change, ownership: ownership)
                            }
                        }
                    }
                    following.withLock { $0?.cancel() }
                }
                group.addTask { [client, logger, self] in
                    let absence = BrokerAbsence(grace: Self.brokerFailoverGrace)
                    var resubscribing: Task<Void, Never>?
                    var leaving: Task<Void, Never>?
                    defer {
                        resubscribing?.cancel()
                        leaving?.cancel()
                    }
                    var wasDisconnected = false
                    for await state in client.connectionStates {
                        switch state {
                        case .connected where wasDisconnected:
                            // Back only once subscribed again: a NATS cluster answers a SUBSCRIBE
                            // seconds late after a node dies, and a member that owned partitions
                            // meanwhile would hear none of their reports.
                            wasDisconnected = false
                            resubscribing?.cancel()
                            resubscribing = Task {
                                await self.resubscribe(ownership)
                                guard !Task.isCancelled else { return }
                                if !absence.back(rejoin: { coordination.setAvailable(true) }) {
                                    // Rode it out in the live set: the others relay what it missed.
                                    self.logger.info("membership: back on the broker within \(absence.grace); kept the live set")
                                    self.publishMemberStatus(ownership, state: .online, live: true)
                                }
                            }
                        case .disconnected:
                            wasDisconnected = true
                            resubscribing?.cancel()
                            // Reports go unseen until it is back: what phones entered meanwhile is unknown here.
                            await core.missedReports()
                            guard let lost = absence.lost() else { break }
                            leaving?.cancel()
                            leaving = Task {
                                try? await Task.sleep(for: absence.grace)
                                guard !Task.isCancelled else { return }
                                absence.graceEnded(lost) {
                                    if !ownership.owned().owned.isEmpty {
                                        logger.warning(
                                            "membership: off the broker for \(absence.grace); leaving the live set until subscribed again")
                                    }
                                    coordination.setAvailable(false)
                                }
                            }
                        default: break
                        }
                    }
                }
                var fenceChecks: [Int: ContinuousClock.Instant] = [:]
                while !Task.isCancelled {
                    // Held reports now served (a partition gained, a crossing hold passed) are answered.
                    await publish(await core.releaseHeld(ownership: ownership))
                    // Unanswered ones after a membership change go round once more, for an owner that
                    // may never have received them (QoS 0, on the connection that never waits).
                    for (topic, payload) in await core.relayHeld(ownership: ownership) {
                        try? (liveClient ?? client).enqueue(topic: topic, payload: payload, qos: .atMostOnce)
                        metrics.relayedReports.increment()
                    }
                    let fenced = ownership.owned().fenced
                    metrics.fenced.set(Double(fenced.count))
                    await checkFences(fenced, ownership: ownership, coordination: coordination, checked: &fenceChecks)
                    try? await Task.sleep(for: .milliseconds(100))
                }
                group.cancelAll()
            }
        }
    }

    /// Asks etcd, at most once a second per partition, whether each fenced partition's owner key
    /// is still this member's under its token; if so the higher token came from another etcd
    /// history (sets retained on the broker from an etcd cluster since recreated) and the
    /// partition is served again.
    func checkFences(
        _ fenced: [Int], ownership: PartitionOwnership, coordination: EtcdElection<PartitionOwnership>,
        checked: inout [Int: ContinuousClock.Instant]
    ) async {
        let now = ContinuousClock.now
        for partition in fenced where checked[partition].map({ now - $0 >= .seconds(1) }) ?? true {
            checked[partition] = now
            guard let token = ownership.token(of: partition), await coordination.stillHolds(partition, token: token) == true,
                ownership.unfence(partition, token: token)
            else { continue }
            logger.warning(
                "fence lifted: partition \(ownership.map.names[partition]) is still ours in etcd under token \(token); the higher token seen came from another etcd history"
            )
        }
    }

    /// Logs a change of the live set or of what this member owns, says it on the member status,
    /// and tells the core (``CoordinatorCore/membershipChanged(gained:ownership:now:)``).
    func changed(_ change: PartitionOwnership.Change, ownership: PartitionOwnership, metrics: PartitionMetrics) async {
        metrics.membershipChanges.increment()
        metrics.live.set(Double(change.live.count))
        metrics.owned.set(Double(change.owned.count))
        let names = { (partitions: [Int]) in partitions.map { ownership.map.names[$0] }.joined(separator: ", ") }
        let tokens = change.gained.compactMap { ownership.token(of: $0).map { "\($0)" } }.joined(separator: ", ")
        let text =
            "membership: live \(change.live.joined(separator: ", ")); owning \(names(change.owned))"
            + (change.gained.isEmpty ? "" : "; gained \(names(change.gained)) (token \(tokens))")
            + (change.lost.isEmpty ? "" : "; lost \(names(change.lost))")
        logger.info("\(text)")
        publishMemberStatus(ownership, state: .online)  // say what is owned now
        await core.membershipChanged(gained: change.gained, ownership: ownership)
    }

    /// How long a member may be off the broker and keep its partitions (``BrokerAbsence``).
    static let brokerFailoverGrace = Duration.seconds(2)

    /// After a reconnection: subscribes again to every filter a member needs. The client
    /// re-subscribes by itself, but a NATS cluster refuses subscriptions for a while after a node
    /// dies, and a refused one is forgotten: the member would own partitions and hear none of their reports.
    func resubscribe(_ ownership: PartitionOwnership) async {
        let topics = configuration.topics
        var filters = memberFilters()
        for partition in ownership.owned().owned {
            filters += ownership.map.gateways(of: partition).compactMap { Identifier(validating: $0).map(topics.sightings) }
        }
        for filter in filters {
            await retrying("subscribe to \(filter) again", attempts: nil) { _ = try await client.subscribe(filter, qos: Self.memberQoS) }
        }
    }

    /// Runs `operation` until it succeeds, at most `attempts` times (`nil`: until cancelled), a
    /// second apart, saying each failure: a NATS cluster refuses subscriptions for a while after a node dies.
    private func retrying(_ what: String, attempts: Int?, _ operation: () async throws -> Void) async {
        var attempt = 1
        while !Task.isCancelled {
            do {
                return try await operation()
            } catch {
                logger.warning("membership: cannot \(what) (attempt \(attempt)\(attempts.map { " of \($0)" } ?? "")): \(error)")
                if let attempts, attempt >= attempts { return }
            }
            attempt += 1
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// The QoS of every subscription a member makes: 0. On a NATS cluster a QoS 1 subscription is
    /// a JetStream consumer, silent for seconds after a node kill, while QoS 0 keeps flowing; a
    /// member that loses its connection serves nothing until it is back and subscribed again.
    static let memberQoS = QoS.atMostOnce

    /// Subscribes to the sightings of the gateways of partitions gained, unsubscribes from lost ones'
    /// (a refusal is retried a few times, then said and left).
    func follow(_ change: PartitionOwnership.Change, ownership: PartitionOwnership) async {
        let topics = configuration.topics
        for (partitions, subscribe) in [(change.lost, false), (change.gained, true)] {
            for partition in partitions {
                for id in ownership.map.gateways(of: partition).compactMap({ Identifier(validating: $0) }) {
                    let topic = topics.sightings(id)
                    await retrying("\(subscribe ? "subscribe to" : "unsubscribe from") \(topic)", attempts: 5) {
                        if subscribe {
                            _ = try await client.subscribe(topic, qos: Self.memberQoS)
                        } else {
                            try await client.unsubscribe(topic)
                        }
                    }
                }
            }
        }
    }

    /// Publishes this member's status (its state and, online, the partitions it owns) for
    /// observers (the map, `watch`) and the other members (``HeldReports/noteStatus(partitions:at:)``):
    /// membership itself is in etcd. Retained at QoS 1, or `live`: at QoS 0 on the live connection,
    /// beside the retained one, which on a NATS cluster may wait seconds for JetStream (a member
    /// back within the grace says so at once, so that the others relay the reports it missed).
    func publishMemberStatus(_ ownership: PartitionOwnership, state: CoordinatorStatus.State, live: Bool = false) {
        guard let member = Identifier(validating: ownership.member) else { return }
        let owned = state == .online ? ownership.owned().owned.map { ownership.map.names[$0] } : []
        let status = CoordinatorMemberStatus(
            member: ownership.member, state: state, venue: ownership.map.venue, partitions: owned, time: Date())
        let topic = configuration.topics.coordinatorMember(member)
        do {
            let payload = try WireCoding.encode(status)
            if live {
                try (liveClient ?? publisher).enqueue(topic: topic, payload: payload, qos: .atMostOnce)
            } else {
                try publisher.enqueue(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
            }
        } catch {
            logger.warning("cannot publish the member status: \(error)")
        }
    }

    /// The outputs this member publishes, stamped with its member id and the fencing token of
    /// their partition: those of clients in the partitions it serves now (held, not fenced, its
    /// lease known valid).
    func serving(_ outputs: [CoordinatorOutput], ownership: PartitionOwnership, metrics: PartitionMetrics) -> [CoordinatorOutput] {
        var kept: [CoordinatorOutput] = []
        kept.reserveCapacity(outputs.count)
        for output in outputs {
            let partition = ownership.partition(of: output)
            guard ownership.serves(partition) else {
                metrics.withheld.increment()
                continue
            }
            if case .regions(let client, var message) = output {
                message.coordinator = ownership.member
                message.token = ownership.token(of: partition)
                message.partition = ownership.map.names[partition]
                kept.append(.regions(client: client, message))
            } else {
                kept.append(output)
            }
        }
        return kept
    }

    /// The connection of a member's live copies and relayed reports, all QoS 0, which on a NATS
    /// cluster take core NATS and keep flowing while a retained or QoS 1 publish waits for JetStream.
    static func liveConnection(for coordinator: MQTTConfiguration) -> MQTTConfiguration {
        sideConnection(for: coordinator, suffix: "live")
    }

    /// The connection a member publishes `regions`, `events` and its retained statuses on; the
    /// main connection keeps the subscriptions (and the will) and publishes nothing while serving.
    /// NATS closes a connection whose retained publish JetStream took over 4 s to store (a stream
    /// leader killed): such a close then costs only this connection, which sends again what it had
    /// not sent, and the member keeps receiving and deciding (docs/partitioning.md).
    static func outboundConnection(for coordinator: MQTTConfiguration) -> MQTTConfiguration {
        sideConnection(for: coordinator, suffix: "out")
    }

    /// A member's connection beside its main one: the same settings, the client id followed by
    /// `-suffix`, a clean session, no will, and a standard network thread (it receives only acks).
    private static func sideConnection(for coordinator: MQTTConfiguration, suffix: String) -> MQTTConfiguration {
        var configuration = coordinator
        configuration.clientID = String((coordinator.clientID + "-" + suffix).prefix(128))
        configuration.cleanSession = true
        configuration.will = nil
        configuration.networkThreadScheduling = .standard
        return configuration
    }
}
