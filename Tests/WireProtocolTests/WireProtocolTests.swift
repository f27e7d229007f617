import Foundation
import Testing
import WireProtocol

@Suite("Wire contract v1")
struct WireProtocolTests {
    @Test("identifiers accept [A-Za-z0-9._-]{1,64} and nothing else")
    func identifiers() {
        #expect(Identifier.isValid("gw-01.hall_A"))
        #expect(Identifier.isValid(String(repeating: "a", count: 64)))
        #expect(!Identifier.isValid(String(repeating: "a", count: 65)))
        #expect(!Identifier.isValid(""))
        for bad in ["a/b", "a+b", "a#", "é", "a b", "a\u{0}"] {
            #expect(!Identifier.isValid(bad), "\(bad) must be rejected")
        }
    }

    @Test("topics round-trip through route(_:)")
    func topics() throws {
        let topics = try Topics(prefix: "venue/x")
        let gw = try Identifier("gw-1")
        let client = try Identifier("phone.7")
        #expect(try topics.route(topics.sightings(gw)) == .sightings(gw))
        #expect(try topics.route(topics.gatewayStatus(gw)) == .gatewayStatus(gw))
        #expect(try topics.route(topics.clientReport(client)) == .clientReport(client))
        #expect(try topics.route(topics.clientRegions(client)) == .clientRegions(client))
        #expect(try topics.route(topics.clientEvents(client)) == .clientEvents(client))
        #expect(try topics.route(topics.coordinatorStatus) == .coordinatorStatus)
        #expect(try topics.route(topics.coordinatorMember(try Identifier("mall-c1"))) == .coordinatorMember(try Identifier("mall-c1")))
        // A `.` in an id (tags are UUID.MAJOR.MINOR) is written `:` in its topic level, which NATS accepts.
        let tag = try Identifier("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0.1.2")
        #expect(topics.clientRegions(tag) == "venue/x/v1/clients/E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2/regions")
        #expect(try topics.route(topics.clientRegions(tag)) == .clientRegions(tag))
        #expect(try topics.route(topics.sightings(try Identifier("gw.lobby"))) == .sightings(try Identifier("gw.lobby")))
        #expect(throws: WireError.unknownTopic("venue/x/v2/clients/a/report")) { try topics.route("venue/x/v2/clients/a/report") }
        #expect(throws: WireError.unknownTopic("venue/x/v1/clients/a/b/report")) { try topics.route("venue/x/v1/clients/a/b/report") }
        #expect(throws: WireError.invalidIdentifier("a b")) { try topics.route("venue/x/v1/clients/a b/report") }
        #expect(throws: WireError.self) { try Topics(prefix: "bad/#") }
    }

    @Test("RFC 3339 with milliseconds, both ways")
    func rfc3339() {
        #expect(RFC3339.string(millisecondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(RFC3339.string(millisecondsSince1970: 1_795_424_400_123) == "2026-11-23T09:00:00.123Z")
        #expect(RFC3339.millisecondsSince1970("2026-11-23T09:00:00.123Z") == 1_795_424_400_123)
        #expect(RFC3339.millisecondsSince1970("2026-11-23T10:00:00.1+01:00") == 1_795_424_400_100)
        #expect(RFC3339.millisecondsSince1970("2026-11-23T09:00:00Z") == 1_795_424_400_000)
        #expect(RFC3339.string(millisecondsSince1970: -1) == "1969-12-31T23:59:59.999Z")
        for bad in ["", "2026-13-01T00:00:00Z", "2026-11-23 09:00", "2026-11-23T09:00:00.Z", "2026-11-23T09:00:00.000"] {
            #expect(RFC3339.millisecondsSince1970(bad) == nil, "\(bad) must be rejected")
        }
    }

    @Test("payload decoding names the topic and the field")
    func payloadErrors() throws {
        let topic = "beaconfleet/v1/clients/a/report"
        let ok = try WireCoding.decode(
            ClientReport.self, from: Array(#"{"v":1,"ranged":[{"uuid":"X","major":1,"minor":2,"rssi":-60}],"extra":true}"#.utf8),
            topic: topic)
        #expect(ok.ranged.count == 1 && ok.events.isEmpty)
        #expect(throws: WireError.invalidPayload(topic: topic, reason: "missing field ranged[0].major")) {
            try WireCoding.decode(
                ClientReport.self, from: Array(#"{"v":1,"ranged":[{"uuid":"X","minor":2,"rssi":-60}]}"#.utf8), topic: topic)
        }
        #expect(throws: WireError.unsupportedVersion(topic: topic, version: 2)) {
            try WireCoding.decode(ClientReport.self, from: Array(#"{"v":2}"#.utf8), topic: topic)
        }
        let big = [UInt8](repeating: 0x20, count: WireCoding.maximumPayloadBytes + 1)
        #expect(throws: WireError.oversizedPayload(topic: topic, bytes: big.count, limit: WireCoding.maximumPayloadBytes)) {
            try WireCoding.decode(ClientReport.self, from: big, topic: topic)
        }
    }

    @Test("a sightings batch survives an encode and decode unchanged")
    func sightingsRoundTrip() throws {
        let batch = SightingsBatch(
            gateway: "gw-1", seq: 42,
            start: Date(timeIntervalSince1970: 1_795_424_400.000), end: Date(timeIntervalSince1970: 1_795_424_401.000),
            sightings: [
                Sighting(
                    format: "ibeacon", uuid: "494E5445-4C4C-495F-524F-434B535F4857", major: 20594, minor: 62207,
                    address: "AA:BB:CC:DD:EE:FF", rssi: -61.5, rssiMax: -55, count: 9, txPower: -59, distance: 1.4)
            ]
        )
        let bytes = try WireCoding.encode(batch)
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""start":"2026-11-23T09:00:00.000Z""#))
        #expect(try WireCoding.decode(SightingsBatch.self, from: bytes, topic: "t") == batch)
    }
}

@Suite("RFC 3339 regressions")
struct RFC3339RegressionTests {
    @Test("more than three fraction digits parse (truncated to milliseconds) instead of trapping")
    func longFractions() {
        #expect(RFC3339.millisecondsSince1970("2026-11-23T09:00:00.1234Z") == 1_795_424_400_123)
        #expect(RFC3339.millisecondsSince1970("2026-11-23T09:00:00.123456789Z") == 1_795_424_400_123)
    }
}
