import Coordinator
import MQTT
import Testing

@Suite("Ingest queue")
struct IngestQueueTests {
    func sightings(received: ContinuousClock.Instant, gateway: String = "g1") -> QueuedMessage {
        QueuedMessage(
            topic: "beaconfleet/v1/gateways/\(gateway)/sightings", bytes: [UInt8]("{}".utf8).withUnsafeBytes { MQTTPayload(copying: $0) },
            received: received)
    }

    @Test("a backlog is sightings waiting, without the lane emptying once, for longer than the given age; not merely a non-empty queue")
    func backlogByAge() {
        let queue = IngestQueue()
        let now = ContinuousClock.now
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now), "empty")
        queue.push(sightings(received: now - .milliseconds(50), gateway: "g1"), isSightings: true)
        queue.push(sightings(received: now - .milliseconds(10), gateway: "g2"), isSightings: true)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now), "one window's batches, just arrived")
        #expect(queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)), "waiting for 350 ms")
        // Taking one leaves the lane waiting all along: a stream that keeps it full stays a backlog.
        _ = queue.poll(upTo: 1)
        #expect(queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)))
        // Once it has emptied, the next window starts afresh.
        _ = queue.poll(upTo: 10)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)), "empty")
        queue.push(sightings(received: now + .milliseconds(250)), isSightings: true)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)), "the next window, 50 ms old")
        // A gateway's next window queued behind its last: more than a window waits.
        queue.push(sightings(received: now + .milliseconds(260), gateway: "g2"), isSightings: true)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)))
        queue.push(sightings(received: now + .milliseconds(270), gateway: "g1"), isSightings: true)
        #expect(queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)), "g1 has two batches waiting")
        _ = queue.poll(upTo: 1)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)), "one each again")
    }

    @Test("reports are served first, alone, and never shed; the oldest sightings are shed past the limit and counted")
    func lanes() {
        let queue = IngestQueue(sightingsLimit: 2)
        for _ in 0..<3 { queue.push(sightings(received: .now), isSightings: true) }
        queue.push(
            QueuedMessage(
                topic: "beaconfleet/v1/clients/p1/report", bytes: MQTTPayload(copying: UnsafeRawBufferPointer(start: nil, count: 0))),
            isSightings: false)
        #expect(queue.depths.sightings == 2 && queue.depths.priority == 1 && queue.depths.shed == 1)
        // The report goes in a step of its own, not beside a window of sightings; they follow.
        #expect(queue.poll(upTo: 10).map(\.isSightings) == [false])
        #expect(queue.poll(upTo: 10).map(\.isSightings) == [true, true])
    }
}

@Suite("Ingest queue: taken messages")
struct IngestQueueTakenTests {
    @Test("a taken message is not also held by the queue: its payload goes when its taker is done")
    func takenPayloadIsUnique() throws {
        let queue = IngestQueue()
        for n in 0..<3 {
            let bytes = [UInt8](repeating: UInt8(n), count: 4096)
            queue.push(
                QueuedMessage(topic: "beaconfleet/v1/gateways/g\(n)/sightings", bytes: bytes.withUnsafeBytes { MQTTPayload(copying: $0) }),
                isSightings: true)
        }
        var taken = queue.poll(upTo: 2)
        #expect(taken.count == 2)
        var payload = taken.removeFirst().bytes
        #expect(payload.withUnsafeBytes { Array($0) } == [UInt8](repeating: 0, count: 4096))
        #expect(isKnownUniquelyReferenced(&payload), "the queue keeps no reference to it")
    }
}
