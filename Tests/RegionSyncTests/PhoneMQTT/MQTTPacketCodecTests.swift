import RegionSyncMQTT
import TestSupport
import Testing
import Topology

/// The MQTT 3.1.1 codec: known bytes, round trips, every malformation named, and random bytes that
/// never trap.
@Suite("MQTT 3.1.1 packet codec")
struct MQTTPacketCodecTests {
    /// One of each packet kind, with the fields that change the encoding.
    static let samples: [MQTTPacket] = [
        .connect(.init(clientID: "phone-1")),
        .connect(.init(clientID: "phone-2", cleanSession: false, keepAlive: 0, username: "phone-2", password: Array("sécret".utf8))),
        .connect(
            .init(
                clientID: "", keepAlive: 65535, username: "u",
                will: .init(topic: "beaconfleet/v1/gateways/g/status", payload: [1, 2], qos: .atLeastOnce, retain: true))),
        .connack(.init(sessionPresent: true, returnCode: .accepted)),
        .connack(.init(returnCode: .notAuthorized)),
        .publish(.init(topic: "a/b", payload: [])),
        .publish(
            .init(
                topic: "beaconfleet/v1/clients/phone-1/regions", payload: Array(#"{"v":1}"#.utf8), qos: .atLeastOnce, retain: true,
                packetIdentifier: 7)),
        .publish(
            .init(topic: "ü/€", payload: Array(repeating: 0xAB, count: 20_000), qos: .atLeastOnce, duplicate: true, packetIdentifier: 65535)
        ),
        .puback(packetIdentifier: 1),
        .subscribe(
            .init(packetIdentifier: 2, subscriptions: [.init(filter: "a/+/c", qos: .atLeastOnce), .init(filter: "#", qos: .atMostOnce)])),
        .suback(.init(packetIdentifier: 2, results: [.granted(.atLeastOnce), .failure, .granted(.atMostOnce)])),
        .pingreq, .pingresp, .disconnect,
    ]

    @Test("every packet decodes to itself after encoding")
    func roundTrip() throws {
        for packet in Self.samples {
            #expect(try MQTTPacket(decoding: packet.encoded()) == packet, "\(packet.name)")
        }
    }

    @Test("bytes as the specification gives them")
    func knownBytes() throws {
        // CONNECT "MQTT" level 4, clean session, keep-alive 60, client id "a", user "u", password "p".
        #expect(
            try MQTTPacket.connect(.init(clientID: "a", keepAlive: 60, username: "u", password: [0x70])).encoded()
                == [0x10, 19, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0xC2, 0, 60, 0, 1, 0x61, 0, 1, 0x75, 0, 1, 0x70])
        #expect(try MQTTPacket.connack(.init(returnCode: .badUserNameOrPassword)).encoded() == [0x20, 2, 0, 4])
        #expect(
            try MQTTPacket.publish(.init(topic: "t", payload: [9], qos: .atLeastOnce, retain: true, packetIdentifier: 10)).encoded()
                == [0x33, 6, 0, 1, 0x74, 0, 10, 9])
        #expect(
            try MQTTPacket.subscribe(.init(packetIdentifier: 1, subscriptions: [.init(filter: "t", qos: .atLeastOnce)])).encoded()
                == [0x82, 6, 0, 1, 0, 1, 0x74, 1])
        #expect(try MQTTPacket(decoding: [0x90, 3, 0, 1, 0x80]) == .suback(.init(packetIdentifier: 1, results: [.failure])))
        #expect(try MQTTPacket.pingreq.encoded() == [0xC0, 0])
        #expect(try MQTTPacket.disconnect.encoded() == [0xE0, 0])
        #expect(try MQTTPacket.puback(packetIdentifier: 0x1234).encoded() == [0x40, 2, 0x12, 0x34])
    }

    @Test("remaining lengths at every boundary of their one to four bytes")
    func remainingLength() throws {
        let cases: [(Int, [UInt8])] = [
            (0, [0x00]), (127, [0x7F]), (128, [0x80, 0x01]), (16_383, [0xFF, 0x7F]), (16_384, [0x80, 0x80, 0x01]),
            (2_097_151, [0xFF, 0xFF, 0x7F]), (2_097_152, [0x80, 0x80, 0x80, 0x01]), (268_435_455, [0xFF, 0xFF, 0xFF, 0x7F]),
        ]
        for (value, bytes) in cases {
            #expect(RemainingLength.encoded(value) == bytes)
            let decoded = try #require(try RemainingLength.decode(bytes))
            #expect(decoded.value == value && decoded.byteCount == bytes.count)
            #expect(try RemainingLength.decode(bytes.dropLast()) == nil, "incomplete: more bytes needed")
        }
        #expect(throws: MQTTPacketError.malformedRemainingLength) { try RemainingLength.decode([0xFF, 0xFF, 0xFF, 0xFF, 0x01]) }
    }

    @Test("each malformation is refused with its own error")
    func malformed() {
        let cases: [([UInt8], MQTTPacketError)] = [
            ([0x00, 0], .reservedPacketType(0)),
            ([0xF0, 0], .reservedPacketType(15)),
            ([0x50, 2, 0, 1], .unsupportedPacketType(5)),
            ([0xA2, 0], .unsupportedPacketType(10)),
            ([0x21, 2, 0, 0], .invalidFlags(packet: "CONNACK", flags: 1)),
            ([0x80, 6, 0, 1, 0, 1, 0x74, 1], .invalidFlags(packet: "SUBSCRIBE", flags: 0)),
            ([0xC0, 1, 0], .trailingBytes(packet: "PINGREQ", count: 1)),
            ([0x20, 2, 2, 0], .invalidAcknowledgeFlags(2)),
            ([0x20, 2, 0, 6], .invalidReturnCode(packet: "CONNACK", value: 6)),
            ([0x20, 1, 0], .truncated(packet: "CONNACK", field: "return code")),
            ([0x20, 3, 0, 0, 0], .trailingBytes(packet: "CONNACK", count: 1)),
            ([0x36, 5, 0, 1, 0x74, 0, 1], .invalidQoS(packet: "PUBLISH", value: 3)),
            ([0x38, 3, 0, 1, 0x74], .duplicateAtQoS0),
            ([0x32, 5, 0, 1, 0x74, 0, 0], .invalidPacketIdentifier(packet: "PUBLISH")),
            ([0x32, 4, 0, 1, 0x74, 0], .truncated(packet: "PUBLISH", field: "packet identifier")),
            ([0x30, 3, 0, 5, 0x74], .truncated(packet: "PUBLISH", field: "topic")),
            ([0x30, 3, 0, 1, 0x23], .invalidTopic("#")),
            ([0x30, 2, 0, 0], .invalidTopic("")),
            ([0x30, 4, 0, 2, 0xC3, 0x28], .invalidString(packet: "PUBLISH", field: "topic")),
            ([0x30, 3, 0, 1, 0x00], .invalidString(packet: "PUBLISH", field: "topic")),
            ([0x40, 2, 0, 0], .invalidPacketIdentifier(packet: "PUBACK")),
            ([0x82, 2, 0, 1], .empty(packet: "SUBSCRIBE")),
            ([0x82, 6, 0, 1, 0, 1, 0x74, 3], .invalidQoS(packet: "SUBSCRIBE", value: 3)),
            ([0x82, 7, 0, 1, 0, 2, 0x61, 0x2B, 1], .invalidTopicFilter("a+")),
            ([0x82, 8, 0, 1, 0, 3, 0x23, 0x2F, 0x61, 1], .invalidTopicFilter("#/a")),
            ([0x90, 3, 0, 1, 0x03], .invalidReturnCode(packet: "SUBACK", value: 3)),
            ([0x90, 2, 0, 1], .empty(packet: "SUBACK")),
            ([0x10, 7, 0, 4, 0x4D, 0x51, 0x54, 0x54, 3], .unsupportedProtocol(name: "MQTT", level: 3)),
            ([0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x03, 0, 0, 0, 0], .invalidConnectFlags(0x03)),
            ([0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x42, 0, 0, 0, 0], .invalidConnectFlags(0x42)),
            ([0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x1E, 0, 0, 0, 0], .invalidConnectFlags(0x1E)),
            ([0x10, 12, 0, 4, 0x4D, 0x51, 0x54, 0x54, 4, 0x10, 0, 0, 0, 0], .invalidConnectFlags(0x10)),
        ]
        for (bytes, error) in cases {
            #expect(throws: error, "\(bytes)") { try MQTTPacket(decoding: bytes) }
        }
    }

    @Test("what cannot be written is refused before any byte is")
    func unencodable() {
        #expect(throws: MQTTPacketError.invalidTopic("a/#")) { try MQTTPacket.publish(.init(topic: "a/#", payload: [])).encoded() }
        #expect(throws: MQTTPacketError.invalidPacketIdentifier(packet: "PUBLISH")) {
            try MQTTPacket.publish(.init(topic: "a", payload: [], qos: .atLeastOnce)).encoded()
        }
        #expect(throws: MQTTPacketError.fieldTooLong(packet: "CONNECT", field: "client identifier", length: 70_000)) {
            try MQTTPacket.connect(.init(clientID: String(repeating: "x", count: 70_000))).encoded()
        }
        #expect(throws: MQTTPacketError.invalidString(packet: "CONNECT", field: "user name")) {
            try MQTTPacket.connect(.init(clientID: "a", username: "a\u{0}b")).encoded()
        }
        #expect(throws: MQTTPacketError.invalidConnectFlags(0x42)) { try MQTTPacket.connect(.init(clientID: "a", password: [1])).encoded() }
        #expect(throws: MQTTPacketError.invalidTopicFilter("a/#/b")) {
            try MQTTPacket.subscribe(.init(packetIdentifier: 1, subscriptions: [.init(filter: "a/#/b", qos: .atMostOnce)])).encoded()
        }
    }

    @Test("the stream decoder returns the same packets however the bytes are cut")
    func streamChunks() throws {
        let stream = try Self.samples.flatMap { try $0.encoded() }
        var random = SplitMix64(seed: 36)
        for _ in 0..<200 {
            var decoder = MQTTPacketDecoder()
            var packets: [MQTTPacket] = []
            var index = 0
            while index < stream.count {
                let size = Int.random(in: 1...max(1, min(stream.count - index, Bool.random(using: &random) ? 7 : 5000)), using: &random)
                decoder.append(stream[index..<index + size])
                index += size
                while let packet = try decoder.next() { packets.append(packet) }
            }
            #expect(packets == Self.samples)
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test("a packet announced longer than the limit is refused as soon as its length is read")
    func tooLarge() {
        var decoder = MQTTPacketDecoder(maximumPacketSize: 1000)
        decoder.append([0x30, 0xE9, 0x07])  // PUBLISH of 1001 bytes, none of them sent yet
        #expect(throws: MQTTPacketError.packetTooLarge(length: 1001, limit: 1000)) { try decoder.next() }
    }

    // The two fuzz-style tests below compute for seconds in a debug build: on a thread of their own
    // (`onOwnThread`), not on the cooperative pool the broker tests' timers and streams need.

    @Test("random bytes never trap: each input decodes or is refused, and what decodes encodes back to itself")
    func randomBytes() async throws {
        let (decoded, mismatches) = try await onOwnThread { () -> (Int, [[UInt8]]) in
            var random = SplitMix64(seed: 0x4D51_5454)
            var decoded = 0
            var mismatches: [[UInt8]] = []
            for round in 0..<100_000 {
                let length = Int.random(in: 0...(round % 10 == 0 ? 300 : 24), using: &random)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
                // Half the inputs get a plausible header (a known type and a matching length), to reach the fields.
                if round % 2 == 0, length >= 2 {
                    bytes[0] = [0x10, 0x20, 0x30, 0x32, 0x3B, 0x40, 0x82, 0x90, 0xC0, 0xD0, 0xE0][Int(bytes[0]) % 11]
                    bytes[1] = UInt8(min(length - 2, 127))
                    bytes = Array(bytes.prefix(2 + Int(bytes[1])))
                }
                var decoder = MQTTPacketDecoder(maximumPacketSize: 4096)
                decoder.append(bytes)
                // A refusal (a thrown MQTTPacketError) is what a decoder must do with bad bytes.
                while let packet = try? decoder.next() {
                    decoded += 1
                    if (try? MQTTPacket(decoding: packet.encoded())) != packet { mismatches.append(bytes) }
                }
            }
            return (decoded, mismatches)
        }
        #expect(mismatches.isEmpty, "decoded, then encoded to something else: \(mismatches.prefix(5))")
        #expect(decoded > 500, "the plausible headers reach valid packets too (\(decoded))")
    }

    @Test("valid packets with bytes flipped, cut or added never trap")
    func mutations() async throws {
        let encodings = try Self.samples.map { try $0.encoded() }.filter { $0.count < 2000 }
        let unencodable = try await onOwnThread { () -> [[UInt8]] in
            var random = SplitMix64(seed: 1883)
            var unencodable: [[UInt8]] = []
            for _ in 0..<50_000 {
                var bytes = encodings[Int.random(in: 0..<encodings.count, using: &random)]
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let index = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[index] ^= UInt8.random(in: 1...255, using: &random)
                case 1:
                    bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
                default:
                    bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
                }
                _ = try? MQTTPacket(decoding: bytes)
                var decoder = MQTTPacketDecoder()
                decoder.append(bytes)
                while let packet = try? decoder.next() {
                    if (try? packet.encoded()) == nil { unencodable.append(bytes) }
                }
            }
            return unencodable
        }
        #expect(unencodable.isEmpty, "decoded packets that cannot be written back: \(unencodable.prefix(5))")
    }

    @Test("packet identifiers go round 1...65535 and skip those in use")
    func identifiers() {
        var identifiers = PacketIdentifiers()
        #expect(identifiers.next(avoiding: []) == 1)
        #expect(identifiers.next(avoiding: [2, 3]) == 4)
        var last: UInt16 = 0
        for _ in 0..<65531 { last = identifiers.next(avoiding: []) ?? 0 }
        #expect(last == 65535)
        #expect(identifiers.next(avoiding: [1]) == 2, "wraps past 0, which is not an identifier")
        #expect(identifiers.next(avoiding: Set(1...65535)) == nil)
    }

    @Test("topic names and filters follow MQTT's wildcard rules")
    func topics() {
        #expect(MQTTTopic.isValidName("beaconfleet/v1/clients/p/regions"))
        #expect(!MQTTTopic.isValidName("a/+/b") && !MQTTTopic.isValidName("#") && !MQTTTopic.isValidName(""))
        for filter in ["#", "+", "a/#", "+/+/c", "a//b", "/"] { #expect(MQTTTopic.isValidFilter(filter), "\(filter)") }
        for filter in ["", "a#", "#/a", "a/b+", "a/#/b"] { #expect(!MQTTTopic.isValidFilter(filter), "\(filter)") }
        let matches: [(String, String, Bool)] = [
            ("a/b/c", "a/b/c", true), ("a/b/c", "a/+/c", true), ("a/b/c", "a/#", true), ("a", "a/#", true), ("a/b", "a/+", true),
            ("a/b/c", "a/+", false), ("a/b", "a/b/c", false), ("a/b/c", "#", true), ("$SYS/x", "#", false), ("$SYS/x", "$SYS/#", true),
            ("a//c", "a/+/c", true), ("b/b/c", "a/+/c", false),
        ]
        for (topic, filter, expected) in matches { #expect(MQTTTopic.matches(topic, filter: filter) == expected, "\(topic) ~ \(filter)") }
    }
}
