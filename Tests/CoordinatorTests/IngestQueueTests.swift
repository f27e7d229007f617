import Coordinator
import MQTT
import Testing

@Suite("Ingest queue")
struct IngestQueueTests {
    func sightings(received: ContinuousClock.Instant) -> InboundMessage {
        InboundMessage(message: MQTTMessage(topic: "beaconfleet/v1/gateways/g1/sightings", payload: [UInt8]("{}".utf8)), received: received)
    }

    @Test("a backlog is sightings that waited longer than the given age, not merely a non-empty queue")
    func backlogByAge() {
        let queue = IngestQueue()
        let now = ContinuousClock.now
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now), "empty")
        queue.push(sightings(received: now - .milliseconds(50)), isSightings: true)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now), "one window's batches, just arrived")
        queue.push(sightings(received: now - .milliseconds(10)), isSightings: true)
        #expect(queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(300)), "the oldest has waited 350 ms")
        _ = queue.poll(upTo: 1)
        #expect(!queue.sightingsBacklogged(olderThan: .milliseconds(200), now: now + .milliseconds(150)), "the oldest left is 160 ms old")
    }

    @Test("reports are served first and never shed; the oldest sightings are shed past the limit and counted")
    func lanes() {
        let queue = IngestQueue(sightingsLimit: 2)
        for _ in 0..<3 { queue.push(sightings(received: .now), isSightings: true) }
        queue.push(InboundMessage(message: MQTTMessage(topic: "beaconfleet/v1/clients/p1/report", payload: [])), isSightings: false)
        #expect(queue.depths.sightings == 2 && queue.depths.priority == 1 && queue.depths.shed == 1)
        let taken = queue.poll(upTo: 10)
        #expect(taken.map(\.isSightings) == [false, true, true])
    }
}
