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

    /// Recomputes the live set until shutdown and, on a change, follows it (a change may take a
    /// while: subscribing to a NATS cluster is slow); beside it, the heartbeat, which nothing delays.
    func membershipLoop(_ ownership: PartitionOwnership, metrics: PartitionMetrics) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in await self.heartbeatLoop(ownership, metrics: metrics) }
            group.addTask { [client, logger, self] in
                // A member cut off from the broker serves nothing, and on reconnecting rejoins: its
                // view of the others went stale meanwhile (they may have taken its partitions).
                var resubscribing: Task<Void, Never>?
                defer { resubscribing?.cancel() }
                var wasDisconnected = false
                for await state in client.connectionStates.cancelOnGracefulShutdown() {
                    switch state {
                    case .connected:
                        if wasDisconnected {
                            // Back only once subscribed again: a NATS cluster answers a SUBSCRIBE
                            // seconds late after a node dies (the session stream's leader re-elected),
                            // and a member that owned partitions meanwhile would hear none of their reports.
                            resubscribing?.cancel()
                            resubscribing = Task {
                                await self.resubscribe(ownership)
                                if !Task.isCancelled { ownership.connected() }
                            }
                        } else {
                            ownership.connected()
                        }
                        wasDisconnected = false
                    case .disconnected:
                        wasDisconnected = true
                        if !ownership.owned().owned.isEmpty {
                            logger.warning("membership: disconnected from the broker; serving nothing until reconnected")
                        }
                        ownership.disconnected()
                        // Reports go unseen until it is back: what phones entered meanwhile is unknown here.
                        await core.missedReports()
                    case .idle, .connecting, .closed: break
                    }
                }
            }
            // Following a change subscribes, and a subscription waits for the broker however long
            // it takes: done outside this service's tasks (one change after another), so a member
            // whose broker is gone still stops on SIGTERM (the client closes after this service,
            // and the waiting subscription then fails).
            var following: Task<Void, Never>?
            defer { following?.cancel() }
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
                    publishMemberStatus(ownership, state: .online, retain: true)  // say what is owned now
                    // Before the grace ends: the gained partitions' next sets continue from the clock.
                    await core.membershipChanged()
                    await core.gained(change.gained, ownership: ownership)
                    following = Task { [previous = following, self] in
                        await previous?.value
                        await self.follow(change, ownership: ownership)
                    }
                }
                // Held reports now served (a grace ended, a crossing hold passed) are answered.
                await publish(await core.releaseHeld(ownership: ownership))
                // Unanswered ones after a membership change go round once more, for an owner that
                // may never have received them (QoS 0, on the connection that never waits).
                for (topic, payload) in await core.relayHeld(ownership: ownership) {
                    try? (heartbeatClient ?? client).enqueue(topic: topic, payload: payload, qos: .atMostOnce)
                    metrics.relayedReports.increment()
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
            group.cancelAll()
        }
    }

    /// Publishes the heartbeat every ``PartitionConfiguration/heartbeat`` seconds: at QoS 0 and not
    /// retained, so on a NATS cluster it takes core NATS, not JetStream (which stalls for seconds
    /// while it elects leaders after a node dies), and on a connection of its own
    /// (``heartbeatConnection(for:)``); the retained status is re-published every tenth heartbeat
    /// and on every change (a new member reads it first, then the heartbeats).
    func heartbeatLoop(_ ownership: PartitionOwnership, metrics: PartitionMetrics) async {
        let heartbeat = Duration.milliseconds(Int64(ownership.configuration.heartbeat * 1000))
        var beats = 0
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            // QoS 0 is not queued while disconnected (and a heartbeat from then would be stale). Both
            // connections must be up, and the subscriptions back: a member that cannot receive must not look live.
            if client.connectionState.isConnected, heartbeatClient?.connectionState.isConnected ?? true, !ownership.isCutOff {
                publishMemberStatus(ownership, state: .online, retain: beats % 10 == 0)
            }
            metrics.fenced.set(Double(ownership.owned().fenced.count))
            beats += 1
            await Self.pause(for: heartbeat)
        }
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

    /// Publishes this member's status: retained at QoS 1, or a heartbeat (QoS 0, not retained).
    func publishMemberStatus(_ ownership: PartitionOwnership, state: CoordinatorStatus.State, retain: Bool = true) {
        guard let member = Identifier(validating: ownership.member) else { return }
        let owned = state == .online ? ownership.owned().owned.map { ownership.map.names[$0] } : []
        let status = CoordinatorMemberStatus(
            member: ownership.member, state: state, venue: ownership.map.venue, partitions: owned,
            heartbeat: ownership.configuration.heartbeat, time: Date())
        guard let payload = try? WireCoding.encode(status) else { return }
        do {
            // The retained status on the outbound connection, heartbeats on their own (the will is the main connection's).
            try (retain ? publisher : heartbeatClient ?? client).enqueue(
                topic: configuration.topics.coordinatorMember(member), payload: payload, qos: retain ? .atLeastOnce : .atMostOnce,
                retain: retain)
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

    /// The heartbeats' connection: the coordinator's settings with its own client id, a clean
    /// session and no will. On a NATS cluster a retained or QoS 1 publish waits for JetStream
    /// (measured: 4–11 s after `kill -9` of the node leading the MQTT streams, docs/mqtt.md), and
    /// every publish after it on the same connection waits too; on a connection of their own the
    /// heartbeats keep flowing, so the others do not take a stalled member for a dead one.
    static func heartbeatConnection(for coordinator: MQTTConfiguration) -> MQTTConfiguration {
        sideConnection(for: coordinator, suffix: "heartbeat")
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
