import BeaconKit
import Foundation
import Testing
import Topology
import WireProtocol

@Suite("Sightings batch decoder")
struct SightingsBatchDecoderTests {
    let topic = "beaconfleet/v1/gateways/gw-1/sightings"

    static func randomBatch(_ rng: inout SplitMix64, count: Int) -> SightingsBatch {
        func hex(_ n: Int) -> String { (0..<n).map { _ in String("0123456789ABCDEF".randomElement(using: &rng)!) }.joined() }
        var sightings: [Sighting] = []
        for _ in 0..<count {
            let address = (0..<6).map { _ in hex(2) }.joined(separator: ":")
            let rssi = Double(Int.random(in: -1000 ... -300, using: &rng)) / 10
            let distance: Double? = Bool.random(using: &rng) ? Double.random(in: 0...40, using: &rng) : nil
            let txPower: Int? = Bool.random(using: &rng) ? Int.random(in: -100 ... -40, using: &rng) : nil
            switch Int.random(in: 0..<5, using: &rng) {
            case 0, 1:
                sightings.append(
                    Sighting(
                        format: Bool.random(using: &rng) ? "ibeacon" : "altbeacon",
                        uuid: "\(hex(8))-\(hex(4))-\(hex(4))-\(hex(4))-\(hex(12))",
                        major: UInt16.random(in: 0...UInt16.max, using: &rng), minor: UInt16.random(in: 0...UInt16.max, using: &rng),
                        address: address, rssi: rssi, rssiMax: Int.random(in: -100 ... -20, using: &rng),
                        count: Int.random(in: 1...50, using: &rng), txPower: txPower, distance: distance))
            case 2:
                sightings.append(
                    Sighting(
                        format: "eddystone-uid", namespace: hex(20), instance: hex(12), address: address, rssi: rssi,
                        rssiMax: -40, count: 3, txPower: txPower, distance: distance))
            case 3:
                sightings.append(Sighting(format: "eddystone-url", address: address, rssi: rssi, rssiMax: -40, count: 1))
            default:
                sightings.append(
                    Sighting(format: "eddystone-tlm", address: address, rssi: rssi, rssiMax: -41, count: 2, distance: distance))
            }
        }
        let start = Date(timeIntervalSince1970: 1_795_424_400 + Double(Int.random(in: 0...100_000, using: &rng)))
        return SightingsBatch(
            gateway: Bool.random(using: &rng) ? "gw-1" : nil, seq: UInt64.random(in: 1...1_000_000, using: &rng),
            start: start, end: start.addingTimeInterval(1), sightings: sightings)
    }

    @Test("agrees with the Codable reference on random valid batches")
    func agreesWithCodable() throws {
        var rng = SplitMix64(seed: 42)
        let decoder = SightingsBatchDecoder()
        for round in 0..<200 {
            let batch = Self.randomBatch(&rng, count: round % 17)
            let bytes = try WireCoding.encode(batch)
            let reference = try WireCoding.decode(SightingsBatch.self, from: bytes, topic: topic)
            let fast = try decoder.decode(bytes, topic: topic, gateway: "gw-1")
            #expect(fast.seq == reference.seq)
            #expect(fast.startMilliseconds == Int64((reference.start.timeIntervalSince1970 * 1000).rounded()))
            #expect(fast.endMilliseconds == Int64((reference.end.timeIntervalSince1970 * 1000).rounded()))
            #expect(fast.sightings.map(\.sighting) == reference.sightings, "round \(round)")
        }
    }

    @Test("a decoded sighting takes 64 bytes: its small fields fill the identity's padding")
    func decodedSightingLayout() {
        // A batch's thousand are written by the decoder and read again by the engine; in the
        // wire's field order they took 80 bytes each.
        #expect(MemoryLayout<DecodedSighting>.stride == 64)
    }

    @Test("whitespace, unknown fields and nulls for optional fields are accepted like Codable does")
    func tolerant() throws {
        let text = """
            { "v" : 1 , "seq" : 7, "extra": {"a": [1, 2, {"b": null}], "c": "\\u00e9\\n"},
              "start": "2026-11-23T09:00:00.000Z", "end": "2026-11-23T09:00:01.000Z",
              "sightings": [ {"format": "ibeacon", "uuid": "e2c56db5-dffb-48d2-b060-d0f5a71096e0", "major": 1, "minor": 2,
                              "address": "aa:bb:cc:dd:ee:ff", "rssi": -60, "rssiMax": -55, "count": 3, "txPower": null,
                              "distance": 1.5e0, "future": true } ] }
            """
        let bytes = Array(text.utf8)
        let reference = try WireCoding.decode(SightingsBatch.self, from: bytes, topic: topic)
        let fast = try SightingsBatchDecoder().decode(bytes, topic: topic)
        var expected = reference.sightings
        expected[0].uuid = expected[0].uuid?.uppercased()
        expected[0].address = expected[0].address.uppercased()
        #expect(fast.sightings.map(\.sighting) == expected)
        #expect(fast.seq == 7)
    }

    @Test("keys spelled with escapes, keys that only start like a known one, and keys at the very end are read like Codable reads them")
    func unusualKeys() throws {
        // "rssi\u004dax" is rssiMax; "rssiMaximum" and "uuidx" are unknown keys; the last sighting's keys
        // sit within 16 bytes of the end of the payload.
        let text =
            #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":["#
            + #"{"address":"AA:BB:CC:DD:EE:01","count":2,"format":"ibeacon","major":1,"minor":2,"rssi":-61,"rssi\u004dax":-50,"rssiMaximum":9,"uuidx":1,"#
            + #""uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"},"#
            + #"{"format":"eddystone-url","address":"AA:BB:CC:DD:EE:02","count":1,"rssiMax":-70,"rssi":-71}]}"#
        let bytes = Array(text.utf8)
        let reference = try WireCoding.decode(SightingsBatch.self, from: bytes, topic: topic)
        let fast = try SightingsBatchDecoder().decode(bytes, topic: topic)
        #expect(fast.sightings.map(\.sighting) == reference.sightings)
        #expect(fast.sightings.map(\.rssiMax) == [-50, -70])
    }

    @Test("a UUID is accepted exactly when every digit is hex (either case) and the hyphens are in place")
    func uuidDigits() {
        let valid = Array("e2C56DB5-dffb-48D2-B060-D0F5A71096E0".utf8)
        for position in valid.indices {
            for byte in UInt8(0x20)...UInt8(0x7E) {
                var text = valid
                text[position] = byte
                let uuid = String(decoding: text, as: UTF8.self)
                let hyphen = [8, 13, 18, 23].contains(position)
                let ok = hyphen ? byte == 0x2D : (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66)
                let key = BeaconIdentity(uuid: uuid, major: 1, minor: 2)
                #expect((key != nil) == ok, "\(uuid)")
                if let key { #expect(key.uuid.description == uuid.uppercased()) }
            }
        }
    }

    @Test(
        "errors name the topic and the field",
        arguments: [
            (
                #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[{"format":"ibeacon","uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","minor":2,"address":"AA:BB:CC:DD:EE:FF","rssi":-60,"rssiMax":-50,"count":1}]}"#,
                "field sightings[0].major"
            ),
            (
                #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[{"format":"ibeacon","uuid":"E2C56DB5-DFFB-48D2-B060","major":1,"minor":2,"address":"AA:BB:CC:DD:EE:FF","rssi":-60,"rssiMax":-50,"count":1}]}"#,
                "field sightings[0].uuid"
            ),
            (
                #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[{"format":"eddystone-url","address":"AA:BB:CC:DD:EE:FF","rssi":"loud","rssiMax":-50,"count":1}]}"#,
                "field sightings[0].rssi"
            ),
            (
                #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[{"format":"ibeacon","uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":70000,"minor":2,"address":"AA:BB:CC:DD:EE:FF","rssi":-60,"rssiMax":-50,"count":1}]}"#,
                "field sightings[0].major"
            ),
            (
                #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[{},{"format":"x"}]}"#,
                "field sightings[0].format"
            ),
            (
                #"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[{"format":"eddystone-tlm","address":"AA:BB:CC:DD:EE","rssi":-60,"rssiMax":-50,"count":1}]}"#,
                "field sightings[0].address"
            ),
            (#"{"v":1,"seq":-1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[]}"#, "field seq"),
            (#"{"v":1,"seq":1,"start":"yesterday","end":"2026-11-23T09:00:01Z","sightings":[]}"#, "field start"),
            (#"{"v":1,"seq":1,"start":"2026-11-23T09:00:02Z","end":"2026-11-23T09:00:01Z","sightings":[]}"#, "field end"),
            (#"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z"}"#, "field sightings"),
            (
                #"{"v":1,"seq":1,"gateway":"gw-2","start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[]}"#,
                "field gateway"
            ),
            (#"{"v":1,"seq":1,"start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[]} x"#, "the payload"),
            (#"[1,2]"#, "the payload"),
        ])
    func errorsNameTheField(payload: String, field: String) {
        do {
            _ = try SightingsBatchDecoder().decode(Array(payload.utf8), topic: topic, gateway: "gw-1")
            Issue.record("accepted \(payload)")
        } catch {
            let text = error.description
            #expect(text.contains(topic), "\(text)")
            #expect(text.contains(field), "\(text) should name \(field)")
        }
    }

    @Test(
        "a string field must be well-formed UTF-8, even where repairing it would keep its length",
        arguments: [
            [0xF0, 0x9F, 0x98, 0x78],  // a four-byte sequence cut short before ASCII: one U+FFFD, three bytes
            [0xC0, 0xAF],  // an overlong "/"
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
            [0x67, 0xFF],
            [0xEF, 0xBF],  // U+FFFD itself, cut short
        ] as [[UInt8]])
    func stringsMustBeUTF8(gateway: [UInt8]) {
        let rest = #"","start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[]}"#
        let payload = Array(#"{"v":1,"seq":1,"gateway":""#.utf8) + gateway + Array(rest.utf8)
        do {
            _ = try SightingsBatchDecoder().decode(payload, topic: topic)
            Issue.record("accepted the gateway bytes \(gateway)")
        } catch {
            #expect(error.description.contains("field gateway"), "\(error)")
            #expect(error.description.contains("not valid UTF-8"), "\(error)")
        }
    }

    @Test("well-formed non-ASCII strings, U+FFFD included, are accepted")
    func wellFormedStrings() throws {
        for gateway in ["gw-1", "gé-1", "門-1", "\u{1F600}", "\u{FFFD}"] {
            let payload =
                #"{"v":1,"seq":1,"gateway":"\#(gateway)","start":"2026-11-23T09:00:00Z","end":"2026-11-23T09:00:01Z","sightings":[]}"#
            let batch = try SightingsBatchDecoder().decode(Array(payload.utf8), topic: topic, gateway: gateway)
            #expect(batch.seq == 1)
        }
    }

    @Test("v other than 1 and oversized payloads get their own errors")
    func versionAndSize() {
        #expect(throws: WireError.unsupportedVersion(topic: topic, version: 2)) {
            try SightingsBatchDecoder().decode(Array(#"{"v":2,"whatever":[]}"#.utf8), topic: topic)
        }
        let big = [UInt8](repeating: 0x20, count: WireCoding.maximumPayloadBytes + 1)
        #expect(throws: WireError.oversizedPayload(topic: topic, bytes: big.count, limit: WireCoding.maximumPayloadBytes)) {
            try SightingsBatchDecoder().decode(big, topic: topic)
        }
    }

    @Test("never traps: every prefix and thousands of random mutations either decode or throw")
    func neverTraps() throws {
        var rng = SplitMix64(seed: 7)
        let valid = try WireCoding.encode(Self.randomBatch(&rng, count: 6))
        let decoder = SightingsBatchDecoder()
        var accepted = 0
        var rejected = 0
        for length in 0...valid.count {
            do {
                _ = try decoder.decode(Array(valid.prefix(length)), topic: topic)
                accepted += 1
            } catch { rejected += 1 }
        }
        #expect(accepted == 1, "only the whole payload decodes")
        let alphabet = Array(#"{}[],:"\0123456789-.eE+ntrufalsv"#.utf8) + [0x00, 0xFF, 0x80]
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                }
                if bytes.isEmpty { break }
            }
            do {
                _ = try decoder.decode(bytes, topic: topic)
                accepted += 1
            } catch { rejected += 1 }
        }
        #expect(rejected > 10_000)
        // Deep nesting in an unknown field is refused, not recursed into without bound.
        let deep = #"{"v":1,"x":"# + String(repeating: "[", count: 100_000) + "}"
        #expect(throws: WireError.self) { try decoder.decode(Array(deep.utf8), topic: topic) }
    }
}
