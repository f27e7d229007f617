import BeaconKit
import Foundation
import Testing
import Topology
import WireProtocol

/// Both directions of the contract's hand-written codec, against each other and against `Codable`:
/// what the agent's writer writes, the coordinator's scanner reads back to the same sightings, and
/// `JSONDecoder` reads to the same batch; reports are validated in one place.
@Suite("Codec round trips")
struct CodecRoundTripTests {
    let topic = "beaconfleet/v1/gateways/gw-1/sightings"

    @Test("writer → scanner → Codable: the same batch every way")
    func sightingsRoundTrip() throws {
        var rng = SplitMix64(seed: 2026)
        var writer = SightingsBatchWriter()
        let scanner = SightingsBatchDecoder()
        for round in 0..<300 {
            let batch = SightingsBatchDecoderTests.randomBatch(&rng, count: round % 23)
            let startMicros = Int64((batch.start.timeIntervalSince1970 * 1000).rounded()) * 1000
            let endMicros = Int64((batch.end.timeIntervalSince1970 * 1000).rounded()) * 1000
            let written = writer.encode(
                gateway: "gw-1", seq: batch.seq, startMicros: startMicros, endMicros: endMicros, sightings: batch.sightings)
            let scanned = try scanner.decode(written, topic: topic, gateway: "gw-1")
            let decoded = try WireCoding.decode(SightingsBatch.self, from: written, topic: topic)
            #expect(scanned.sightings.map(\.sighting) == batch.sightings, "round \(round)")
            #expect(decoded.sightings == batch.sightings, "round \(round)")
            #expect(scanned.seq == batch.seq && decoded.seq == batch.seq)
            #expect(scanned.startMilliseconds * 1000 == startMicros && scanned.endMilliseconds * 1000 == endMicros)
            #expect(decoded.gateway == "gw-1")
        }
    }

    @Test("a scanned sighting keys its beacon with the one identity type")
    func scannedIdentities() throws {
        let sightings = [
            Sighting(
                format: "ibeacon", uuid: "494E5445-4C4C-495F-524F-434B535F4857", major: 1, minor: 2, address: "A4:C1:38:BF:6F:AB",
                rssi: -60, rssiMax: -50, count: 1),
            Sighting(
                format: "eddystone-uid", namespace: "EDD1EBEAC04E5DEFA017", instance: "0BDB87539B67", address: "00:00:00:00:00:01",
                rssi: -80, rssiMax: -80, count: 1),
            Sighting(format: "eddystone-tlm", address: "00:00:00:00:00:02", rssi: -70, rssiMax: -70, count: 2),
        ]
        var writer = SightingsBatchWriter()
        let scanned = try SightingsBatchDecoder().decode(
            writer.encode(gateway: "gw-1", seq: 1, startMicros: 0, endMicros: 1_000_000, sightings: sightings), topic: topic)
        #expect(
            scanned.sightings.map(\.key) == [
                BeaconIdentity(uuid: "494E5445-4C4C-495F-524F-434B535F4857", major: 1, minor: 2)!,
                BeaconIdentity(
                    namespace: EddystoneNamespace(hex: "EDD1EBEAC04E5DEFA017")!, instance: EddystoneInstance(hex: "0BDB87539B67")!),
                BeaconIdentity(address: BluetoothAddress("00:00:00:00:00:02")!),
            ])
        #expect(scanned.sightings.map(\.format) == [.iBeacon, .eddystoneUID, .eddystoneTLM])
    }

    @Test("a report round-trips through the encoder and ClientReport.decode")
    func reportRoundTrip() throws {
        let report = ClientReport(
            time: Date(timeIntervalSince1970: 1_795_424_400.123),
            ranged: [
                RangedBeacon(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 1, minor: 2, rssi: -70, accuracy: 2.5, proximity: "near")
            ],
            events: [RegionEvent(type: .enter, region: "hall-1")], monitored: ["hall-1", "hall-2"], budget: 18,
            advertising: AdvertisedIdentity(uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 9, minor: 9), version: 4)
        let bytes = try WireCoding.encode(report)
        let decoded = try bytes.withUnsafeBytes { buffer throws(WireError) in
            try ClientReport.decode(buffer, topic: "beaconfleet/v1/clients/p1/report")
        }
        #expect(decoded.ranged == report.ranged && decoded.events == report.events && decoded.monitored == report.monitored)
        #expect(decoded.budget == 18 && decoded.version == 4 && decoded.advertising == report.advertising)
    }

    @Test(
        "invalid reports are refused with the field named",
        arguments: [
            (#"{"v":1,"budget":21}"#, "field budget: 21 is outside 0...20"),
            (#"{"v":1,"budget":-1}"#, "field budget: -1 is outside 0...20"),
            (#"{"v":1,"ranged":[{"uuid":"nope","major":1,"minor":2,"rssi":-60}]}"#, "field ranged[0].uuid: not a UUID"),
            (
                #"{"v":1,"ranged":[{"uuid":"E2C56DB5DFFB48D2B060D0F5A71096E0","major":1,"minor":2,"rssi":-60}]}"#,
                "field ranged[0].uuid: not a UUID"
            ),
            (
                #"{"v":1,"ranged":[{"uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","major":1,"minor":2,"rssi":30}]}"#,
                "field ranged[0].rssi: 30 dBm"
            ),
            (#"{"v":1,"advertising":{"uuid":"x","major":1,"minor":1}}"#, "field advertising.uuid: not a UUID"),
            (#"{"v":1,"events":[{"type":"wander","region":"a"}]}"#, "field events[0].type"),
            (#"{"v":1,"phone":{"authorization":1}}"#, "field phone.authorization"),
            (#"{"v":1,"phone":{"lowPower":"yes"}}"#, "field phone.lowPower"),
            (#"{"v":1,"phone":"classic"}"#, "field phone"),
            (#"{"v":2}"#, #"has "v": 2"#),
            (#"{"budget":3}"#, "missing field v"),
            (#"not json"#, "not valid JSON"),
        ])
    func invalidReports(_ payload: String, _ expected: String) {
        let topic = "beaconfleet/v1/clients/p1/report"
        let error = #expect(throws: WireError.self) {
            _ = try Array(payload.utf8).withUnsafeBytes { buffer throws(WireError) in try ClientReport.decode(buffer, topic: topic) }
        }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains(expected), "\(text)")
        #expect(text.contains(topic), "\(text)")
    }

    @Test("the phone's status round-trips, and values this build does not know read as absent, never as an error")
    func phoneStatus() throws {
        let topic = "beaconfleet/v1/clients/p1/report"
        func decode(_ bytes: [UInt8]) throws -> ClientReport {
            try bytes.withUnsafeBytes { buffer throws(WireError) in try ClientReport.decode(buffer, topic: topic) }
        }
        let status = PhoneStatus(
            backEnd: .monitor, os: "iOS 18.2", authorization: .always, backgroundRefresh: .available, lowPower: false, launch: .location)
        let bytes = try WireCoding.encode(ClientReport(phone: status))
        let written = #""phone":{"authorization":"always","backEnd":"monitor","backgroundRefresh":"available","launch":"location","#
        #expect(String(decoding: bytes, as: UTF8.self).contains(written + #""lowPower":false,"os":"iOS 18.2"}"#))
        #expect(try decode(bytes).phone == status)
        #expect(status.wakeability == .yes)

        let newer =
            #"{"v":1,"phone":{"backEnd":"bluetooth","authorization":"alwaysPrecise","backgroundRefresh":"sometimes","launch":"widget","#
            + #""lowPower":false,"os":"iOS 27","future":{"x":1}}}"#
        let read = try decode(Array(newer.utf8)).phone
        #expect(read == PhoneStatus(os: "iOS 27", lowPower: false))
        #expect(read?.wakeability == .unknown, "an unknown authorization never makes a phone wakeable")
        #expect(try decode(Array(#"{"v":1}"#.utf8)).phone == nil)
        #expect(try decode(Array(#"{"v":1,"phone":{}}"#.utf8)).phone == PhoneStatus())

        let long = ClientReport(phone: PhoneStatus(os: String(repeating: "x", count: PhoneStatus.maximumOSBytes + 1)))
        let longBytes = try WireCoding.encode(long)
        let error = #expect(throws: WireError.self) { try decode(longBytes) }
        #expect(error.map { "\($0)" }?.contains("field phone.os: longer than 64 bytes") == true)
    }

    @Test(
        "a phone is wakeable only when everything that decides it was stated and allows it",
        arguments: [
            (PhoneStatus(), Wakeability.unknown),
            (PhoneStatus(backEnd: .classic, os: "iOS 17.5", launch: .user), .unknown),
            (PhoneStatus(authorization: .always), .unknown),
            (PhoneStatus(authorization: .always, backgroundRefresh: .available), .unknown),
            (PhoneStatus(authorization: .always, backgroundRefresh: .available, lowPower: false), .yes),
            (PhoneStatus(authorization: .whenInUse), .no),
            (PhoneStatus(authorization: .notDetermined, backgroundRefresh: .available, lowPower: false), .no),
            (PhoneStatus(authorization: .always, backgroundRefresh: .denied, lowPower: false), .no),
            (PhoneStatus(backgroundRefresh: .restricted), .no),
            (PhoneStatus(authorization: .always, backgroundRefresh: .available, lowPower: true), .no),
        ])
    func wakeability(_ status: PhoneStatus, _ expected: Wakeability) {
        #expect(status.wakeability == expected)
    }

    @Test("reports past the size limit or with too many monitored ids are refused")
    func boundedReports() throws {
        let topic = "beaconfleet/v1/clients/p1/report"
        let many = ClientReport(monitored: (0...ClientReport.maximumMonitored).map { "r\($0)" })
        let bytes = try WireCoding.encode(many)
        #expect(throws: WireError.self) {
            _ = try bytes.withUnsafeBytes { buffer throws(WireError) in try ClientReport.decode(buffer, topic: topic) }
        }
        let huge = [UInt8](repeating: 0x20, count: WireCoding.maximumPayloadBytes + 1)
        #expect(throws: WireError.oversizedPayload(topic: topic, bytes: huge.count, limit: WireCoding.maximumPayloadBytes)) {
            _ = try huge.withUnsafeBytes { buffer throws(WireError) in try ClientReport.decode(buffer, topic: topic) }
        }
    }

    @Test("one escaper: every control character, quote and backslash, as JSONEncoder writes them")
    func escaping() throws {
        let texts = [
            "plain", "quote \" and \\ backslash", "tab\tnew\nline\r", String((0..<32).map { Character(UnicodeScalar(UInt8($0))) }),
            "unicode é ✓ 🛰",
        ]
        for text in texts {
            let quoted = JSONBytes.quoted(text)
            #expect(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)) == text)
            let encoded = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
            #expect(quoted == encoded.replacingOccurrences(of: "\\/", with: "/"))
        }
    }
}
