import BeaconKit
import Foundation
import Testing
import Topology
@testable import WireProtocol

/// The canonical-layout reader against the general path alone: on valid batches and on every kind
/// of damage, both decoders must give the same values (bit for bit) or the same error.
@Suite("Canonical sighting reader")
struct CanonicalSightingReaderTests {
    let topic = "beaconfleet/v1/gateways/gw-1/sightings"
    let fast = SightingsBatchDecoder()
    let general = SightingsBatchDecoder(generalPathOnly: true)

    /// A random sighting of any format with short decimals, as a gateway's filter writes them.
    static func shortSighting(_ rng: inout SplitMix64) -> Sighting {
        func hex(_ n: Int) -> String { (0..<n).map { _ in String("0123456789ABCDEF".randomElement(using: &rng)!) }.joined() }
        let address = (0..<6).map { _ in hex(2) }.joined(separator: ":")
        let scale = [1, 10, 100].randomElement(using: &rng)!
        let rssi = Double(Int.random(in: (-128 * scale)...(20 * scale), using: &rng)) / Double(scale)
        let distance: Double? = Bool.random(using: &rng) ? Double(Int.random(in: 0...99_999, using: &rng)) / 100 : nil
        let txPower: Int? = Bool.random(using: &rng) ? Int.random(in: -128...127, using: &rng) : nil
        let rssiMax = Int.random(in: -128...20, using: &rng)
        let count = Bool.random(using: &rng) ? Int.random(in: 1...60, using: &rng) : Int.random(in: 1...Int(Int32.max), using: &rng)
        switch Int.random(in: 0..<5, using: &rng) {
        case 0, 1:
            return Sighting(
                format: Bool.random(using: &rng) ? "ibeacon" : "altbeacon", uuid: "\(hex(8))-\(hex(4))-\(hex(4))-\(hex(4))-\(hex(12))",
                major: UInt16.random(in: 0...UInt16.max, using: &rng), minor: UInt16.random(in: 0...UInt16.max, using: &rng),
                address: address, rssi: rssi, rssiMax: rssiMax, count: count, txPower: txPower, distance: distance)
        case 2:
            return Sighting(
                format: "eddystone-uid", namespace: hex(20), instance: hex(12), address: address, rssi: rssi, rssiMax: rssiMax,
                count: count, txPower: txPower, distance: distance)
        case 3:
            return Sighting(format: "eddystone-url", address: address, rssi: rssi, rssiMax: rssiMax, count: count, txPower: txPower)
        default:
            return Sighting(format: "eddystone-tlm", address: address, rssi: rssi, rssiMax: rssiMax, count: count, distance: distance)
        }
    }

    /// A valid batch of 1...12 sightings, written by the agent's writer or by `JSONEncoder`.
    static func validPayload(_ rng: inout SplitMix64) throws -> [UInt8] {
        var batch = SightingsBatchDecoderTests.randomBatch(&rng, count: Int.random(in: 1...12, using: &rng))
        if Bool.random(using: &rng) { batch.sightings = batch.sightings.map { _ in shortSighting(&rng) } }
        if Bool.random(using: &rng) { return try WireCoding.encode(batch) }
        var writer = SightingsBatchWriter()
        let start = Int64(batch.start.timeIntervalSince1970 * 1_000_000)
        return writer.encode(
            gateway: batch.gateway ?? "gw-1", seq: batch.seq, epoch: Bool.random(using: &rng) ? 3 : nil, startMicros: start,
            endMicros: start + 1_000_000, sightings: batch.sightings)
    }

    /// The same answer from both decoders: equal batches with bit-identical doubles, or equal errors.
    func expectSameAnswer(_ payload: [UInt8], _ note: @autoclosure () -> String) {
        let a = Result { () throws(WireError) in try fast.decode(payload, topic: topic, gateway: "gw-1") }
        let b = Result { () throws(WireError) in try general.decode(payload, topic: topic, gateway: "gw-1") }
        switch (a, b) {
        case (.success(let x), .success(let y)):
            #expect(x == y, "\(note())")
            #expect(x.sightings.map(\.rssi.bitPattern) == y.sightings.map(\.rssi.bitPattern), "\(note())")
            #expect(x.sightings.map { $0.distance?.bitPattern } == y.sightings.map { $0.distance?.bitPattern }, "\(note())")
        case (.failure(let x), .failure(let y)):
            #expect(x == y, "\(note())")
        default:
            Issue.record("one decoder accepted, the other refused: \(a) / \(b): \(note())")
        }
    }

    @Test("valid batches from the writer and from JSONEncoder decode the same through both paths")
    func validBatches() throws {
        var rng = SplitMix64(seed: 16)
        for _ in 0..<2_000 {
            let payload = try Self.validPayload(&rng)
            expectSameAnswer(payload, String(decoding: payload, as: UTF8.self))
            #expect(throws: Never.self) { try fast.decode(payload, topic: topic, gateway: "gw-1") }
        }
    }

    @Test("the reader takes every canonical sighting the writer makes, with the general path's values")
    func readsCanonicalSightings() throws {
        var rng = SplitMix64(seed: 17)
        var writer = SightingsBatchWriter()
        for _ in 0..<3_000 {
            let sighting = Self.shortSighting(&rng)
            let payload = writer.encode(gateway: "gw-1", seq: 1, startMicros: 0, endMicros: 1_000_000, sightings: [sighting])
            let reference = try general.decode(payload, topic: topic, gateway: "gw-1").sightings[0]
            // The sighting alone, followed by enough blanks for the reader to look at it.
            let text = String(decoding: payload, as: UTF8.self)
            let object = Array(payload[(payload.firstIndex(of: 0x5B)! + 1)..<payload.lastIndex(of: 0x5D)!])
            let padded = object + [UInt8](repeating: 0x20, count: CanonicalSightingReader.reach)
            padded.withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                var field = FieldPath()
                var recent = CanonicalSightingReader.RecentUUID()
                let read = CanonicalSightingReader.agent.read(&scanner, index: 0, field: &field, recent: &recent)
                #expect(read == reference, "\(text)")
                #expect(read?.rssi.bitPattern == reference.rssi.bitPattern)
                #expect(scanner.index == object.count, "the cursor is past the sighting's }")
            }
        }
    }

    @Test("sightings that share a UUID, spelled alike or not, and one damaged after them: the same values or error from both paths")
    func sharedUUIDs() throws {
        let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        func sighting(_ text: String, minor: Int) -> String {
            #"{"address":"AA:BB:CC:DD:EE:\#(String(format: "%02X", minor))","count":3,"format":"ibeacon","major":1,"minor":\#(minor),"rssi":-70.5,"rssiMax":-65,"uuid":"\#(text)"}"#
        }
        func batch(_ uuids: [String]) -> String {
            let sightings = uuids.enumerated().map { sighting($0.element, minor: $0.offset) }.joined(separator: ",")
            return
                #"{"end":"2026-11-26T10:00:01Z","gateway":"gw-1","seq":1,"sightings":[\#(sightings)],"start":"2026-11-26T10:00:00Z","v":1}"#
        }
        let lower = uuid.lowercased()
        let damaged = String(uuid.dropLast()) + "G"
        let other = "5A1D0000-BEAC-4F1E-9E70-000000000001"
        for uuids in [
            [uuid, uuid, uuid], [uuid, lower, uuid, lower], [uuid, other, uuid, other], [uuid, uuid, damaged], [uuid, damaged, uuid],
            [damaged, damaged],
        ] {
            let text = batch(uuids)
            expectSameAnswer(Array(text.utf8), text)
        }
        let decoded = try fast.decode(Array(batch([uuid, lower, other, uuid]).utf8), topic: topic, gateway: "gw-1")
        #expect(
            decoded.sightings.map(\.key)
                == [uuid, uuid, other, uuid].enumerated().compactMap {
                    BeaconIdentity(uuid: $0.element, major: 1, minor: UInt16($0.offset))
                })
    }

    @Test("damaged, reordered, blanked, truncated and respelled batches get the same values or the same error from both paths")
    func damagedBatches() throws {
        var rng = SplitMix64(seed: 18)
        let values = [
            "null", "0", "-0", "-0.0", "01", "-01", "1e2", "1E2", "1.0", "1.", ".5", "-", "1.5e0", "20", "20.0", "20.5", "21", "-128",
            "-128.0", "-129", "127", "128", "65535", "65536", "2147483647", "2147483648", "123456789012345", "1234567890123456",
            "0.000000000000001", "0.0000000000000001", "3.52", "-71.5", "1e400", "true", "[]", "{}", #""x""#, #""ibeacon""#,
            #""eddystone-url""#, #""AA:BB:CC:DD:EE:FF""#, #""aa-bb-cc-dd-ee-ff""#, #""AA:BB:CC:DD:EE:F""#, #""AA:BB:CC:DD:EE:FG""#,
            #""e2c56db5-dffb-48d2-b060-d0f5a71096e0""#, #""E2C56DB5-DFFB-48D2-B060-D0F5A71096E""#, #""0123456789abcdef0123""#,
            #""0123456789AB""#, #""0123456789A\u0042""#, #""\u0041A:BB:CC:DD:EE:FF""#,
        ]
        let keys = [
            "address", "count", "distance", "format", "instance", "major", "minor", "namespace", "rssi", "rssiMax", "txPower", "uuid",
            "rssi\\u004dax", "zz", "uuidx",
        ]
        let alphabet = Array(#"{}[],:"\0123456789-.eE+ntrufalsv "#.utf8) + [0x00, 0x0A, 0xFF, 0x80]
        for round in 0..<6_000 {
            var text = String(decoding: try Self.validPayload(&rng), as: UTF8.self)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                text = Self.damage(text, &rng, values: values, keys: keys, alphabet: alphabet)
            }
            expectSameAnswer(Array(text.utf8), "round \(round): \(text)")
        }
    }

    /// One random change to a payload's text.
    static func damage(_ text: String, _ rng: inout SplitMix64, values: [String], keys: [String], alphabet: [UInt8]) -> String {
        var bytes = Array(text.utf8)
        // The members of one sighting: the text between a `{"` that opens a sighting and its `}`.
        let opens = bytes.indices.filter { $0 + 2 < bytes.count && bytes[$0] == 0x7B && bytes[$0 + 1] == 0x22 && $0 > 0 }
        switch Int.random(in: 0..<8, using: &rng) {
        case 0:  // random bytes changed, removed or inserted
            for _ in 0..<Int.random(in: 1...3, using: &rng) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                }
            }
        case 1:  // truncated, possibly followed by blanks
            bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng)))
            if Bool.random(using: &rng) { bytes += [UInt8](repeating: 0x20, count: Int.random(in: 0...500, using: &rng)) }
        case 2:  // a blank between tokens
            let at = Int.random(in: 0...bytes.count, using: &rng)
            bytes.insert([0x20, 0x0A, 0x09, 0x0D].randomElement(using: &rng)!, at: at)
        default:
            guard let open = opens.randomElement(using: &rng), let close = bytes[open...].firstIndex(of: 0x7D) else { break }
            var members = String(decoding: bytes[(open + 1)..<close], as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
                .map(String.init)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0:  // two members swapped
                let (i, j) = (Int.random(in: 0..<members.count, using: &rng), Int.random(in: 0..<members.count, using: &rng))
                members.swapAt(i, j)
            case 1:  // a member removed
                members.remove(at: Int.random(in: 0..<members.count, using: &rng))
            case 2:  // a member's value replaced
                let i = Int.random(in: 0..<members.count, using: &rng)
                if let colon = members[i].firstIndex(of: ":") {
                    members[i] = String(members[i][...colon]) + values.randomElement(using: &rng)!
                }
            case 3:  // a member added, known or not, anywhere
                let member = "\"\(keys.randomElement(using: &rng)!)\":\(values.randomElement(using: &rng)!)"
                members.insert(member, at: Int.random(in: 0...members.count, using: &rng))
            default:  // a key respelled with an escape
                let i = Int.random(in: 0..<members.count, using: &rng)
                if members[i].hasPrefix("\"a") {
                    members[i] = "\"\\u0061" + members[i].dropFirst(2)
                } else if members[i].hasPrefix("\"r") {
                    members[i] = "\"\\u0072" + members[i].dropFirst(2)
                } else {
                    members[i] = " " + members[i] + " "
                }
            }
            bytes = Array(bytes[...open]) + Array(members.joined(separator: ",").utf8) + Array(bytes[close...])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("short decimals: the reader's numbers are the scanner's, bit for bit, and correctly rounded")
    func numbers() {
        var rng = SplitMix64(seed: 19)
        var taken = 0
        for _ in 0..<200_000 {
            var literal = Bool.random(using: &rng) ? "-" : ""
            let integerDigits = Int.random(in: 1...9, using: &rng)
            literal += Int.random(in: 0..<4, using: &rng) == 0 ? "0" : String(Int.random(in: 1...9, using: &rng))
            if !literal.hasSuffix("0") { for _ in 1..<integerDigits { literal += String(Int.random(in: 0...9, using: &rng)) } }
            if Int.random(in: 0..<4, using: &rng) > 0 {
                literal += "."
                for _ in 0..<Int.random(in: 0...12, using: &rng) { literal += String(Int.random(in: 0...9, using: &rng)) }
            }
            if Int.random(in: 0..<20, using: &rng) == 0 { literal += ["e1", "E-2", "e+3"].randomElement(using: &rng)! }
            let bytes = Array(literal.utf8) + Array(#","x":1}"#.utf8) + [UInt8](repeating: 0x20, count: 16)
            bytes.withUnsafeBufferPointer { buffer in
                var at = 0
                let read = CanonicalSightingReader.agent.double(buffer.baseAddress!, &at)
                var scanner = JSONScanner(buffer)
                let reference = try? scanner.double()
                guard let read else {
                    // Declined: only what is longer than 15 digits, has an exponent, or is malformed.
                    let digits = literal.filter(\.isNumber).count
                    #expect(
                        digits > 15 || literal.contains("e") || literal.contains("E") || reference == nil || literal.hasSuffix("."),
                        "\(literal)")
                    return
                }
                taken += 1
                #expect(read.bitPattern == reference?.bitPattern, "\(literal)")
                #expect(read.bitPattern == Double(literal)?.bitPattern, "\(literal) against Swift's parser")
                #expect(at == literal.utf8.count)
            }
            let integer = Array(String(Int.random(in: -99_999...99_999, using: &rng)).utf8) + Array(",}".utf8)
            integer.withUnsafeBufferPointer { buffer in
                var at = 0
                var scanner = JSONScanner(buffer)
                #expect(
                    CanonicalSightingReader.integer(buffer.baseAddress!, &at, maxDigits: 5) == (try? scanner.integer(in: -99_999...99_999)))
            }
        }
        #expect(taken > 100_000)
    }
}
