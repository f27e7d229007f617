import Foundation
import MQTT
import Synchronization
import TestSupport
import Testing
import WireProtocol

/// Subscribes to a gateway's sightings and status through a real broker and keeps every batch by
/// its sequence number (repeats too, to check they are identical).
final class SightingsCollector: @unchecked Sendable {
    struct Received {
        var batches: [UInt64: SightingsBatch] = [:]
        var payloads: [UInt64: [UInt8]] = [:]
        var repeats = 0
        var differingRepeats = 0
        /// Every status received, oldest first.
        var statuses: [GatewayStatus] = []
        var invalid: [String] = []
    }

    let client: MQTTClient
    private let received = Mutex(Received())
    private var task: Task<Void, Never>?

    /// Connects with a persistent session (so messages published while the broker restarts are kept
    /// for it, with broker persistence on) and subscribes to the gateway's topics at QoS 1.
    init(broker: BrokerURL, topics: Topics, gateway: Identifier) async throws {
        var configuration = MQTTConfiguration(url: broker, clientID: "collector-\(UUID().uuidString.prefix(8))")
            .reconnecting(after: .milliseconds(50), atMost: .milliseconds(200))
        configuration.cleanSession = false
        client = try MQTTClient(configuration: configuration)
        let messages = client.messages
        try client.connect()
        try await withTimeout(.seconds(10), "the collector to connect") { try await self.client.connected() }
        task = Task { [weak self] in
            for await message in messages { self?.receive(message, topics: topics) }
        }
        _ = try await client.subscribe(topics.sightings(gateway), qos: .atLeastOnce)
        _ = try await client.subscribe(topics.gatewayStatus(gateway), qos: .atLeastOnce)
    }

    private func receive(_ message: MQTTMessage, topics: Topics) {
        received.withLock { received in receive(message, topics: topics, into: &received) }
    }

    private func receive(_ message: MQTTMessage, topics: Topics, into received: inout Received) {
        do {
            switch try topics.route(message.topic) {
            case .sightings:
                let batch = try WireCoding.decode(SightingsBatch.self, from: message.payload, topic: message.topic)
                if let earlier = received.payloads[batch.seq] {
                    received.repeats += 1
                    if earlier != message.payload { received.differingRepeats += 1 }
                } else {
                    received.batches[batch.seq] = batch
                    received.payloads[batch.seq] = message.payload
                }
            case .gatewayStatus:
                received.statuses.append(try WireCoding.decode(GatewayStatus.self, from: message.payload, topic: message.topic))
            default:
                break
            }
        } catch {
            received.invalid.append("\(error)")
        }
    }

    var snapshot: Received {
        received.withLock { $0 }
    }

    /// Waits until batches 1…`lastSeq` have all arrived (or `limit` passes, then returns what there is).
    func waitForBatches(through lastSeq: UInt64, within limit: Duration) async -> Received {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let now = snapshot
            if (1...max(1, lastSeq)).allSatisfy({ now.batches[$0] != nil }) { return now }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return snapshot
    }

    /// Waits until the agent's own status with `state` arrives: one that carries its counters.
    /// The last will (`offline` without counters) does not count: a broker that went away while
    /// the agent was connected publishes it, and a persistent session may hand it over after the
    /// restart, before or after the agent's final status.
    func waitForStatus(_ state: GatewayStatus.State, within limit: Duration) async -> GatewayStatus? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let status = snapshot.statuses.last(where: { $0.state == state && $0.counters != nil }) { return status }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// The end of an agent's run as the collector saw it: the agent's final `offline` status (its
    /// counters' `lastSeq` required; `log`, the agent's, in the failure) and every batch through that
    /// sequence number, waited for up to `limit`. Closes the collector.
    func finalDelivery(
        batchesWithin limit: Duration, log: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (counters: GatewayStatus.Counters, received: Received) {
        let offline = await waitForStatus(.offline, within: .seconds(10))
        let counters = try #require(
            offline?.counters, "no final offline status with counters; agent log:\n\(log())", sourceLocation: sourceLocation)
        let received = await waitForBatches(through: counters.lastSeq, within: limit)
        await close()
        return (counters, received)
    }

    func close() async {
        await client.disconnect()
        task?.cancel()
    }
}

extension SightingsCollector.Received {
    /// Frames per beacon (identity and address), summed over every distinct batch.
    var framesPerBeacon: [SyntheticCapture.SightedBeacon: Int] {
        var result: [SyntheticCapture.SightedBeacon: Int] = [:]
        for batch in batches.values {
            for sighting in batch.sightings {
                let key = SyntheticCapture.SightedBeacon(
                    uuid: sighting.uuid ?? sighting.namespace ?? "", major: sighting.major ?? 0, minor: sighting.minor ?? 0,
                    address: sighting.address)
                result[key, default: 0] += sighting.count
            }
        }
        return result
    }

    /// The sequence numbers received, in order.
    var sequenceNumbers: [UInt64] { batches.keys.sorted() }

    /// Expects delivery exactly once: every batch from 1 through `lastSeq` and no other, every
    /// frame of `expected` counted once, and each batch received again with the same bytes.
    /// `when` ends the failures' messages (e.g. ` across the kill`).
    func expectExactlyOnce(
        through lastSeq: UInt64, frames expected: [SyntheticCapture.SightedBeacon: Int], _ when: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(sequenceNumbers == Array(1...lastSeq), "seq must be gap-free\(when)", sourceLocation: sourceLocation)
        #expect(framesPerBeacon == expected, "every frame exactly once\(when)", sourceLocation: sourceLocation)
        #expect(differingRepeats == 0, "a batch sent again must carry the same bytes\(when)", sourceLocation: sourceLocation)
    }
}
