@testable import MQTT
import MosquittoTesting
import TestSupport
import Testing

@Suite("Payload pool: received payloads' buffers reused")
struct PayloadPoolTests {
    func bytes(_ count: Int, _ seed: UInt8) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ seed } }

    func address(_ array: [UInt8]) -> UnsafeRawPointer? { array.withUnsafeBytes { $0.baseAddress } }

    @Test("a buffer given back holds the next large payload (same storage, only the new bytes); small ones are not pooled")
    func reuse() {
        let pool = PayloadPool(limit: 1 << 20)
        let first = bytes(100_000, 1)
        var payload = first.withUnsafeBytes { pool.copy($0) }
        #expect(payload == first)
        let storage = address(payload)
        var given: [UInt8] = []
        swap(&given, &payload)
        pool.give(given)
        given = []
        #expect(pool.held.count == 1)
        let second = bytes(60_000, 7)
        let reused = second.withUnsafeBytes { pool.copy($0) }
        #expect(reused == second, "the new payload alone, none of the old one's tail")
        #expect(address(reused) == storage)
        #expect(pool.held.count == 0)
        pool.give(bytes(100, 0))
        #expect(pool.held.count == 0, "below \(PayloadPool.minimumBytes) bytes: not pooled")
        let small = bytes(100, 3).withUnsafeBytes { pool.copy($0) }
        #expect(small == bytes(100, 3))
    }

    @Test("a pooled buffer has room for the next payload a little longer than the first: same storage")
    func headroom() {
        let pool = PayloadPool(limit: 1 << 20)
        // 188,400 bytes fill 46 pages less malloc's 16-byte header exactly: an exact allocation has
        // no room for 20 more, whether malloc maps it or takes it from its heap.
        let first = bytes(188_400, 1)
        var payload = first.withUnsafeBytes { pool.copy($0) }
        #expect(payload.capacity >= 188_400 + 188_400 / 32 && payload.capacity <= 2 * 188_400)
        let storage = address(payload)
        var given: [UInt8] = []
        swap(&given, &payload)
        pool.give(given)
        given = []
        let longer = bytes(188_420, 5)
        let reused = longer.withUnsafeBytes { pool.copy($0) }
        #expect(reused == longer)
        #expect(address(reused) == storage, "a payload 20 bytes longer fits the buffer it is copied into")
    }

    @Test("the pool holds at most its limit in bytes")
    func limit() {
        let pool = PayloadPool(limit: 250_000)
        for seed in 0..<5 { pool.give(bytes(100_000, UInt8(seed))) }
        #expect(pool.held.count == 2)
        #expect(pool.held.bytes <= 250_000)
    }

    @Test("buffers held through a whole release period without being taken are freed; those in use stay")
    func release() {
        let start = ContinuousClock.now
        let period = PayloadPool.releasePeriod
        let pool = PayloadPool(limit: 1 << 30, now: start)
        func copy(at time: ContinuousClock.Instant) -> [UInt8] { bytes(50_000, 9).withUnsafeBytes { pool.copy($0, now: time) } }
        for seed in 0..<4 { pool.give(bytes(50_000, UInt8(seed)), now: start + .seconds(1)) }
        // The first period ends: the four arrived during it, so none was held all through it.
        pool.give(copy(at: start + period), now: start + period + .seconds(1))
        #expect(pool.held.count == 4)
        // In the second, two are taken at once (and given back): the pool never held fewer than two.
        let taken = [copy(at: start + period + .seconds(2)), copy(at: start + period + .seconds(2))]
        #expect(pool.held.count == 2)
        for buffer in taken { pool.give(buffer, now: start + period + .seconds(3)) }
        #expect(pool.held.count == 4)
        // Its end: the two never needed leave, and one is taken.
        _ = copy(at: start + period * 2)
        #expect(pool.held.count == 1, "4 held, the 2 idle all period freed, 1 taken")
        // A whole period untouched: the last one goes too.
        _ = copy(at: start + period * 4)
        #expect(pool.held.count == 0)
    }

    @Test("through a broker: recycled payloads arrive intact, each with its own bytes")
    func throughBroker() async throws {
        try await withMosquittoBroker { broker in
            var configuration = MQTTConfiguration(url: broker.url)
            configuration.payloadPoolBytes = 1 << 20
            try await withConnectedClient(configuration) { receiver in
                let messages = receiver.messages
                try await receiver.subscribe("pool/#")
                let sent = (0..<6).map { bytes(40_000 - 3_000 * $0, UInt8($0)) }
                try await withConnectedClient(MQTTConfiguration(url: broker.url)) { sender in
                    // One at a time: each arrives after the one before was given back.
                    for (n, payload) in sent.enumerated() {
                        try await sender.publish(topic: "pool/\(n)", payload: payload, qos: .atLeastOnce)
                        var message = try #require(try await collect(1, from: messages).first)
                        #expect(message.topic == "pool/\(n)")
                        #expect(message.payload == payload)
                        var kept: [UInt8] = []
                        swap(&kept, &message.payload)
                        receiver.recycle(kept)
                    }
                }
                #expect(receiver.core.payloadPool?.held.count == 1, "the last one's buffer, the others reused")
            }
        }
    }
}
