import Foundation
import Testing
import WireProtocol

/// The batch's optional `epoch`: decoding vectors for both decoders, and the writer's output.
@Suite("Sightings batch epoch")
struct SightingsBatchEpochTests {
    let topic = "beaconfleet/v1/gateways/gw-1/sightings"
    static let head =
        #"{"end":"2026-11-24T13:40:01.000Z","gateway":"gw-1","seq":42,"sightings":[],"start":"2026-11-24T13:40:00.000Z","v":1"#

    @Test(
        "decoding vectors: an epoch is read by both decoders; absent or null is none",
        arguments: [
            (Self.head + #","epoch":3817022251735081}"#, UInt64?.some(3_817_022_251_735_081)),
            (Self.head + #","epoch":9007199254740991}"#, UInt64?.some(9_007_199_254_740_991)),
            (Self.head + #","epoch":1}"#, UInt64?.some(1)),
            (Self.head + #","epoch":null}"#, UInt64?.none),
            (Self.head + "}", UInt64?.none),
        ])
    func vectors(json: String, epoch: UInt64?) throws {
        let bytes = Array(json.utf8)
        let fast = try SightingsBatchDecoder().decode(bytes, topic: topic, gateway: "gw-1")
        let reference = try WireCoding.decode(SightingsBatch.self, from: bytes, topic: topic)
        #expect(fast.epoch == epoch)
        #expect(reference.epoch == epoch)
        #expect(fast.seq == 42)
    }

    @Test("an epoch that is not a non-negative integer is refused, naming the field", arguments: [#""7""#, "-1", "1.5", "[]"])
    func refused(value: String) {
        let bytes = Array((Self.head + #","epoch":"# + value + "}").utf8)
        #expect {
            try SightingsBatchDecoder().decode(bytes, topic: topic, gateway: "gw-1")
        } throws: { error in
            "\(error)".contains("epoch")
        }
    }

    @Test("a reused decoder forgets the previous batch's epoch")
    func scratchIsReset() throws {
        let decoder = SightingsBatchDecoder()
        var scratch = DecodedSightingsBatch()
        try Array((Self.head + #","epoch":7}"#).utf8).withUnsafeBytes { try decoder.decode($0, topic: topic, gateway: nil, into: &scratch) }
        #expect(scratch.epoch == 7)
        try Array((Self.head + "}").utf8).withUnsafeBytes { try decoder.decode($0, topic: topic, gateway: nil, into: &scratch) }
        #expect(scratch.epoch == nil)
    }

    @Test("the writer puts the epoch in key order and it matches JSONEncoder's batch")
    func writer() throws {
        var writer = SightingsBatchWriter()
        let start: Int64 = 1_612_150_079_000_000
        let written = writer.encode(
            gateway: "gw-1", seq: 3, epoch: 123_456_789, startMicros: start, endMicros: start + 1_000_000, sightings: [])
        #expect(
            String(decoding: written, as: UTF8.self).hasPrefix(
                #"{"end":"2021-02-01T03:28:00.000Z","epoch":123456789,"gateway":"gw-1","seq":3,"#))
        let reference = SightingsBatch(
            gateway: "gw-1", seq: 3, epoch: 123_456_789, start: Date(timeIntervalSince1970: Double(start) / 1e6),
            end: Date(timeIntervalSince1970: Double(start + 1_000_000) / 1e6), sightings: [])
        #expect(try WireCoding.decode(SightingsBatch.self, from: written, topic: topic) == reference)
        let without = writer.encode(gateway: "gw-1", seq: 4, startMicros: start, endMicros: start + 1_000_000, sightings: [])
        #expect(!String(decoding: without, as: UTF8.self).contains("epoch"))
    }
}
