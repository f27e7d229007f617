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
    /// The subscriptions a member makes whatever it owns: every gateway's status, every phone's
    /// report (a phone's partition is known only from its report), every client's `regions`
    /// (the versions to continue from, and the fence) and every member's status (the reports a
    /// member back from a broker failover missed: ``HeldReports/noteStatus(partitions:at:)``).
    /// Sightings follow ownership (``follow(_:ownership:)``).
    func memberFilters() -> [String] {
        let topics = configuration.topics
        return [topics.allGatewayStatus, topics.allClientReports, topics.allClientRegions, topics.allCoordinatorMembers]
    }

    /// Runs the coordination in etcd until shutdown and follows its changes; beside it, the
    /// broker connection (a member off the broker for longer than ``brokerFailoverGrace`` leaves
    /// the live set, and joins it again once subscribed again: ``BrokerAbsence``) and, every
    /// 100 ms, the held reports.
    func membershipLoop(_ ownership: PartitionOwnership, coordination: EtcdElection<PartitionOwnership>, metrics: PartitionMetrics) async {
        await cancelWhenGracefulShutdown { [self] in
            await withDiscardingTaskGroup { group in
                // Following a change subscribes, and a subscription waits for the broker however long
                // it takes: done beside the coordination (one change after another), so a member
                // whose broker is gone still decides and still stops on SIGTERM.
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
                                    self.announceReturn(ownership)
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
    /// history and the partition is served again. Without this, sets retained on the broker
    /// from an etcd cluster since recreated (its revisions start again from 1) fenced every new
    /// owner for good (partition-check on NATS, whose store outlived the walk's etcd).
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
    /// and prepares the core: held reports of gained partitions become due, and their clients'
    /// next sets continue from the clock.
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
        await core.membershipChanged()
        await core.gained(change.gained, ownership: ownership)
    }

    /// How long a member may be off the broker and keep its partitions (``BrokerAbsence``): a NATS
    /// client is connected to another node and subscribed again within about a second.
    static let brokerFailoverGrace = Duration.seconds(2)

    /// Back within the grace: says the member's status again at once (QoS 0 on the live
    /// connection, beside the retained one, which on a NATS cluster may wait seconds for
    /// JetStream), so that the other members relay the reports of its partitions it missed
    /// (``HeldReports/noteStatus(partitions:at:)``).
    func announceReturn(_ ownership: PartitionOwnership) {
        logger.info("membership: back on the broker within \(Self.brokerFailoverGrace); kept the live set")
        guard let (topic, payload) = memberStatus(ownership, state: .online) else { return }
        try? (liveClient ?? publisher).enqueue(topic: topic, payload: payload, qos: .atMostOnce)
    }

    /// After a reconnection: subscribes again to every filter a member needs, retrying each until
    /// the broker grants it. The client re-subscribes by itself, but a NATS cluster refuses
    /// subscriptions for a while after a node dies, and a refused one is forgotten: the member
    /// would own partitions and hear none of their reports.
    func resubscribe(_ ownership: PartitionOwnership) async {
        let topics = configuration.topics
        var filters = memberFilters()
        for partition in ownership.owned().owned {
            filters += ownership.map.gateways(of: partition).compactMap { Identifier(validating: $0).map(topics.sightings) }
        }
        for filter in filters {
            while !Task.isCancelled {
                do {
                    _ = try await client.subscribe(filter, qos: Self.memberQoS)
                    break
                } catch {
                    logger.warning("membership: cannot subscribe to \(filter) again (\(error)); retrying")
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
    }

    /// The QoS of every subscription a member makes: 0. On a NATS cluster a QoS 1 subscription is
    /// served through a JetStream consumer, which after `kill -9` of a node delivered nothing for
    /// 4–7 s (measured, docs/mqtt.md), while QoS 0 took core NATS and kept flowing (gaps ≤ 0.4 s);
    /// the broker delivers a QoS 1 publish to a QoS 0 subscriber at QoS 0. A member loses a message
    /// only with its connection, and then serves nothing until it has rejoined (its clean
    /// session would not have kept QoS 1 messages either) and reads the retained `regions` again.
    static let memberQoS = QoS.atMostOnce

    /// Subscribes to the sightings of the gateways of partitions gained, unsubscribes from lost ones'.
    func follow(_ change: PartitionOwnership.Change, ownership: PartitionOwnership) async {
        let topics = configuration.topics
        for (partitions, subscribe) in [(change.lost, false), (change.gained, true)] {
            for partition in partitions {
                for gateway in ownership.map.gateways(of: partition) {
                    guard let id = Identifier(validating: gateway) else { continue }
                    // A refused subscription is retried a few times (a NATS cluster refuses them for
                    // a while after a node dies); still refused, it is said and left.
                    for attempt in 1...5 where !Task.isCancelled {
                        do {
                            if subscribe {
                                _ = try await client.subscribe(topics.sightings(id), qos: Self.memberQoS)
                            } else {
                                try await client.unsubscribe(topics.sightings(id))
                            }
                            break
                        } catch {
                            logger.warning(
                                "cannot \(subscribe ? "subscribe to" : "unsubscribe from") \(topics.sightings(id)) (attempt \(attempt) of 5): \(error)"
                            )
                            try? await Task.sleep(for: .seconds(1))
                        }
                    }
                }
            }
        }
    }

    /// Publishes this member's status, retained at QoS 1, for observers (the map, `watch`) and the
    /// other members (``HeldReports/noteStatus(partitions:at:)``): membership itself is in etcd.
    func publishMemberStatus(_ ownership: PartitionOwnership, state: CoordinatorStatus.State) {
        guard let (topic, payload) = memberStatus(ownership, state: state) else { return }
        do {
            try publisher.enqueue(topic: topic, payload: payload, qos: .atLeastOnce, retain: true)
        } catch {
            logger.warning("cannot publish the member status: \(error)")
        }
    }

    /// This member's status topic and payload: its state and, online, the partitions it owns.
    private func memberStatus(_ ownership: PartitionOwnership, state: CoordinatorStatus.State) -> (String, [UInt8])? {
        guard let member = Identifier(validating: ownership.member) else { return nil }
        let owned = state == .online ? ownership.owned().owned.map { ownership.map.names[$0] } : []
        let status = CoordinatorMemberStatus(
            member: ownership.member, state: state, venue: ownership.map.venue, partitions: owned, time: Date())
        guard let payload = try? WireCoding.encode(status) else { return nil }
        return (configuration.topics.coordinatorMember(member), payload)
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

    /// The connection of a member's live copies and relayed reports, all QoS 0: the coordinator's
    /// settings with its own client id, a clean session and no will. On a NATS cluster a retained
    /// or QoS 1 publish waits for JetStream (measured: 4–11 s after `kill -9` of the node leading
    /// the MQTT streams, docs/mqtt.md), and every publish after it on the same connection waits
    /// too; QoS 0 on a connection of its own takes core NATS and keeps flowing.
    static func liveConnection(for coordinator: MQTTConfiguration) -> MQTTConfiguration {
        sideConnection(for: coordinator, suffix: "live")
    }

    /// The connection a member publishes `regions`, `events` and its retained statuses on: the
    /// coordinator's settings with its own client id, a clean session and no will; the main
    /// connection keeps the subscriptions (and the will) and publishes nothing while serving.
    ///
    /// Why: NATS stores a retained or QoS 1 publish in JetStream on the publisher's read loop and,
    /// when that takes over 4 s (a stream leader killed and not yet re-elected), closes the
    /// connection (`mqttJSAPITimeout`, docs/mqtt.md). In `scripts/partition-check` that closed
    /// members' main connections 2–5 s after the node kill: a member that lost its subscriptions
    /// serves nothing until it has rejoined, the others took its partitions for a moment and gave
    /// them back, and the partition went unanswered for up to 8.5 s. Now such a close costs only
    /// this connection: what it had not sent is sent again after it reconnects, the sets reached
    /// the phones already as live copies (``enqueueLiveCopy(topic:payload:)``), and the member
    /// keeps receiving and deciding throughout.
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
