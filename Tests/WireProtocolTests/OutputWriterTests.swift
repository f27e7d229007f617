import Foundation
import Testing
import Topology
import WireProtocol

@Suite("Output writer")
struct OutputWriterTests {
    let topic = "beaconfleet/v1/clients/p1/regions"

    static func position(_ rng: inout SplitMix64) -> Position? {
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return nil
        case 1: return Position(x: Double(Int.random(in: -500...500, using: &rng)), y: 0, level: "L0")
        case 2:
            return Position(
                x: Double.random(in: -1000...1000, using: &rng), y: Double.random(in: 0...1, using: &rng) * 1e-6, level: "ground floor",
                confidence: Double.random(in: 0...30, using: &rng))
        default:
            return Position(
                x: (Double.random(in: 0...100, using: &rng) * 100).rounded() / 100, y: 12.5, level: "L-1", confidence: 5,
                room: Bool.random(using: &rng) ? "Meeting room \"2\"" : nil)
        }
    }

    static func ref(_ rng: inout SplitMix64, _ i: Int) -> RegionRef {
        Bool.random(using: &rng)
            ? RegionRef(
                id: "r\(i)", uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: UInt16.random(in: 0...65535, using: &rng),
                minor: UInt16.random(in: 0...65535, using: &rng))
            : RegionRef(id: "wild-\(i)", uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
    }

    static func time(_ rng: inout SplitMix64) -> Date {
        Date(timeIntervalSince1970: Double(Int64.random(in: 1_700_000_000_000...1_900_000_000_000, using: &rng)) / 1000)
    }

    /// Writes `rounds` values from `make` with `write` and with `JSONEncoder`: both decode to the same
    /// value and the bytes are the same. Returns the decoded values and the originals.
    static func writtenLikeJSONEncoder<Payload: VersionedPayload & Equatable>(
        seed: UInt64, topic: String, rounds: Int = 500, make: (inout SplitMix64, Int) -> Payload,
        write: (inout OutputWriter, Payload) -> [UInt8]
    ) throws -> [(decoded: Payload, original: Payload)] {
        var rng = SplitMix64(seed: seed)
        var writer = OutputWriter()
        let encoder = WireCoding.makeEncoder()
        return try (0..<rounds).map { n in
            let value = make(&rng, n)
            let bytes = write(&writer, value)
            let reference = Array(try encoder.encode(value))
            // Times go through RFC 3339 milliseconds either way: compare with JSONEncoder's round trip.
            let decoded = try WireCoding.decode(Payload.self, from: bytes, topic: topic)
            #expect(decoded == (try WireCoding.decode(Payload.self, from: reference, topic: topic)))
            #expect(bytes == reference, "\(String(decoding: bytes, as: UTF8.self))")
            return (decoded, value)
        }
    }

    @Test("regions messages decode to the same value and match JSONEncoder's bytes")
    func regions() throws {
        _ = try Self.writtenLikeJSONEncoder(seed: 7, topic: topic) { rng, n in
            let regions = (0..<Int.random(in: 0...20, using: &rng)).map { OutputWriterTests.ref(&rng, $0) }
            return RegionsMessage(
                version: UInt64.random(in: 0...UInt64.max, using: &rng), budget: Int.random(in: 0...20, using: &rng), regions: regions,
                add: Array(regions.prefix(Int.random(in: 0...3, using: &rng))),
                remove: (0..<Int.random(in: 0...3, using: &rng)).map { "gone-\($0)" },
                position: OutputWriterTests.position(&rng), reason: ["initial", "moved", "reconcile"][n % 3],
                validFor: Bool.random(using: &rng) ? (Double.random(in: 0...50, using: &rng) * 100).rounded() / 100 : nil,
                time: Bool.random(using: &rng) ? OutputWriterTests.time(&rng) : nil)
        } write: { writer, message in
            writer.encode(message)
        }
    }

    @Test("client events decode to the same value and match JSONEncoder's bytes")
    func events() throws {
        let written = try Self.writtenLikeJSONEncoder(seed: 11, topic: "beaconfleet/v1/clients/p1/events") { rng, n in
            let kind: ClientEvent.Kind = [.enter, .exit, .moved][n % 3]
            return ClientEvent(
                client: n % 2 == 0 ? "5A1D0000-BEAC-4F1E-9E70-000000000001.0.\(n)" : "p\(n)", type: kind,
                region: kind == .moved ? nil : "r\(n)", position: OutputWriterTests.position(&rng), time: OutputWriterTests.time(&rng),
                evidence: [nil, "report", "sightings", "absence"][n % 4])
        } write: { writer, event in
            writer.encode(event)
        }
        for (decoded, event) in written {
            #expect(decoded.client == event.client && decoded.region == event.region && decoded.position == event.position)
        }
    }

    @Test("strings that need escaping still decode to the same value")
    func escaping() throws {
        var writer = OutputWriter()
        let event = ClientEvent(
            client: "p1", type: .enter, region: "a \"quoted\" \\ name\n\t\u{01}/é", position: Position(x: 1, y: 2, level: "L\u{7F}"),
            time: Date(timeIntervalSince1970: 1_795_424_400.123), evidence: "report")
        let decoded = try WireCoding.decode(ClientEvent.self, from: writer.encode(event), topic: "beaconfleet/v1/clients/p1/events")
        let reference = try WireCoding.decode(
            ClientEvent.self, from: try WireCoding.encode(event), topic: "beaconfleet/v1/clients/p1/events")
        #expect(decoded == reference && decoded.region == event.region && decoded.position == event.position)
    }
}
