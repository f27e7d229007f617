import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

/// The venue's client policy (`clients.csv`) applied at ingest: only admitted identities become
/// clients; the rest is counted per gateway and reason.
@Suite("Client admission", .serialized)
struct ClientAdmissionTests {
    let topics = TestVenue.topics
    static let venueRange = "AC:23:3F:00:00:00-AC:23:3F:FF:FF:FF"

    /// The corridor with a policy admitting `TestVenue.tagUUID` and naming the venue's address range.
    static func files() -> [String: String] {
        var files = TestVenue.files()
        files["clients.csv"] = "role,uuid,major,namespace,address\nclient,\(TestVenue.tagUUID),,,\nvenue,,,,\(venueRange)\n"
        return files
    }

    /// One window of gateway `g0`: region beacon r1's iBeacon and its Eddystone TLM frame, a
    /// neighbour's iBeacon, and an admitted tag (minor 1).
    static func mixedBatch(seq: UInt64) -> [UInt8] {
        let start = Date(timeIntervalSince1970: 1_795_424_400 + Double(seq))
        let sightings = [
            Sighting(
                format: "ibeacon", uuid: TestVenue.regionUUID, major: 1, minor: 1, address: "AC:23:3F:00:00:01", rssi: -70, rssiMax: -65,
                count: 5),
            Sighting(format: "eddystone-tlm", address: "AC:23:3F:00:00:01", rssi: -71, rssiMax: -66, count: 2),
            Sighting(
                format: "ibeacon", uuid: "FDA50693-A4E2-4FB1-AFCF-C6EB07647825", major: 10, minor: 7, address: "C0:FF:EE:00:00:07",
                rssi: -80,
                rssiMax: -75, count: 3),
            Sighting(
                format: "ibeacon", uuid: TestVenue.tagUUID, major: 7, minor: 1, address: "AA:BB:CC:DD:EE:01",
                rssi: TestVenue.rssi(distance: 2),
                rssiMax: -55, count: 5, txPower: -59, distance: 2),
        ]
        return try! WireCoding.encode(SightingsBatch(seq: seq, start: start, end: start.addingTimeInterval(1), sightings: sightings))
    }

    @Test("in the engine: only the admitted tag becomes a client; the rest is counted by gateway and reason")
    func engine() throws {
        let venue = try CoordinatorVenue(topology: TestVenue.load(Self.files()), budget: 5, estimator: .init())
        let engine = CoordinatorEngine(venue: venue)
        for seq in 1...3 { try engine.feed(topics.sightings(try Identifier("g0")), Self.mixedBatch(seq: UInt64(seq)), at: Double(seq)) }
        #expect(engine.clientCount == 1)
        #expect(engine.snapshot(of: TestVenue.tagID(1)) != nil)
        #expect(engine.counters.notAdmitted == ["g0": AdmissionCounts(region: 3, venue: 3, unlisted: 3)])
        // The same window on a venue without clients.csv: every identity that is not a region beacon is a client (as before).
        let open = CoordinatorEngine(venue: try TestVenue.make(budget: 5))
        try open.feed(topics.sightings(try Identifier("g0")), Self.mixedBatch(seq: 1), at: 1)
        #expect(open.clientCount == 3)
        #expect(open.counters.notAdmitted == ["g0": AdmissionCounts(region: 1)])
    }

    @Test(
        "through a real broker: a gateway batch with a region beacon's TLM, a neighbour's iBeacon and an admitted tag; /metrics shows the counts"
    )
    func throughTheBroker() async throws {
        let directory = try TestVenue.write(Self.files())
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try LoopbackPort.hold()
        defer { LoopbackPort.release(port) }
        let started = Date().timeIntervalSince1970
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker, topology: directory, httpPort: port)
            let located = try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: topics.allClientEvents) {
                client, messages in
                try await client.publish(topic: topics.sightings(try Identifier("g0")), payload: Self.mixedBatch(seq: 1))
                // The tag's first event (it is located: `moved`; a tag is not planned, so no set):
                // the only client there is to hear of.
                return try await withTimeout(.seconds(20), "the tag's first event") {
                    for await message in messages { return message.topic }
                    return ""
                }
            }
            #expect(located == topics.clientEvents(try Identifier(TestVenue.tagID(1))))
            /// The `/metrics` lines counting what `g0`'s batch did not admit.
            func unadmitted() async throws -> [String] {
                let (code, body) = try await CoordinatorHarness.get(port: port, "/metrics")
                #expect(code == 200)
                return String(decoding: body, as: UTF8.self).split(separator: "\n").map(String.init).filter {
                    $0.hasPrefix("beaconfleet_coordinator_unadmitted_sightings_total") && $0.contains("gateway=\"g0\"")
                }.sorted()
            }
            // The metrics follow the engine's counters at its next pass: wait for them (a bound, not a timing).
            var lines: [String] = []
            let deadline = ContinuousClock.now + .seconds(20)
            repeat {
                lines = try await unadmitted()
                if lines.count == 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            } while ContinuousClock.now < deadline
            #expect(await coordinator.service.core.clientCount == 1)
            // When the batch was applied: after the test started, not after now.
            let (_, body) = try await CoordinatorHarness.get(port: port, "/metrics")
            let applied = String(decoding: body, as: UTF8.self).split(separator: "\n").first {
                $0.hasPrefix("beaconfleet_coordinator_last_sightings_timestamp_seconds ")
            }.flatMap { Double($0.split(separator: " ")[1]) }
            #expect(applied.map { $0 >= started && $0 <= Date().timeIntervalSince1970 } == true, "\(String(describing: applied))")
            await coordinator.stop()
            for reason in ["region", "unlisted", "venue"] {
                #expect(lines.contains { $0.contains("reason=\"\(reason)\"") && $0.hasSuffix(" 1") }, "\(reason) in \(lines)")
            }
        }
    }
}
