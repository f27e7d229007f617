import Foundation
import Logging
import MQTT
import Testing
import WireProtocol

@testable import Coordinator

/// What a phone says about itself in its reports (`phone`, wire.md): the coordinator keeps per
/// phone whether iOS can wake it, counts the ones it cannot, and shows it in the API and the map.
@Suite("Coordinator: which phones iOS can wake")
struct PhoneWakeabilityTests {
    let topics = TestVenue.topics
    func report(_ id: String) -> String { topics.clientReport(try! Identifier(id)) }

    func engine() throws -> CoordinatorEngine {
        CoordinatorEngine(venue: try TestVenue.make(budget: 10), configuration: .init(budget: 10))
    }

    static let wakeable = PhoneStatus(
        backEnd: .classic, os: "iOS 17.5.1", authorization: .always, backgroundRefresh: .available, lowPower: false, launch: .location)

    @Test("each report's status replaces the last; a report without one keeps it; unknown is never counted")
    func statusThroughReports() throws {
        let engine = try engine()
        let enter = [RegionEvent(type: .enter, region: "r10")]
        try engine.feed(report("p1"), ClientReport(events: enter, phone: PhoneStatus(backEnd: .monitor, authorization: .whenInUse)), at: 0)
        try engine.feed(report("p2"), ClientReport(events: enter, phone: Self.wakeable), at: 0)
        try engine.feed(report("p3"), ClientReport(events: enter), at: 0)
        // A newer app's values this build does not know: read as absent, so unknown.
        let newer: [UInt8] = Array(
            #"{"v":1,"phone":{"authorization":"alwaysPrecise","backgroundRefresh":"available","lowPower":false}}"#.utf8)
        try engine.feed(report("p4"), newer, at: 0)
        #expect(engine.unwakeablePhones == 1)
        #expect(engine.snapshot(of: "p1")?.wakeable == .no)
        #expect(engine.snapshot(of: "p1")?.phone == PhoneStatus(backEnd: .monitor, authorization: .whenInUse))
        #expect(engine.snapshot(of: "p2")?.wakeable == .yes)
        #expect(engine.snapshot(of: "p3")?.wakeable == .unknown && engine.snapshot(of: "p3")?.phone == nil)
        #expect(engine.snapshot(of: "p4")?.wakeable == .unknown)

        // p1 is granted Always; then Low Power Mode; then a report that says nothing of it.
        try engine.feed(report("p1"), ClientReport(phone: Self.wakeable), at: 1)
        #expect(engine.unwakeablePhones == 0 && engine.snapshot(of: "p1")?.wakeable == .yes)
        var lowPower = Self.wakeable
        lowPower.lowPower = true
        try engine.feed(report("p1"), ClientReport(phone: lowPower), at: 2)
        try engine.feed(report("p2"), ClientReport(phone: PhoneStatus(backgroundRefresh: .denied)), at: 2)
        #expect(engine.unwakeablePhones == 2)
        try engine.feed(report("p1"), ClientReport(events: [RegionEvent(type: .exit, region: "r10")]), at: 3)
        #expect(engine.snapshot(of: "p1")?.wakeable == .no, "a report without phone leaves what the last one said")
        #expect(engine.unwakeablePhones == 2)

        // The markers the map draws carry it.
        let markers = Dictionary(uniqueKeysWithValues: engine.markers().map { ($0.id, $0.wakeable) })
        #expect(markers == ["p1": .no, "p2": .no, "p3": .unknown, "p4": .unknown])
        let page = engine.clients(ClientQuery(kind: .phone))
        #expect(page.page.map(\.wakeable) == [.no, .no, .unknown, .unknown])

        // A phone that expires leaves the count.
        engine.expireIdle(now: TestVenue.millis(3) + engine.configuration.idleTimeout + 1)
        #expect(engine.clientCount == 0 && engine.unwakeablePhones == 0)
    }

    @Test("the API and the map's stream say it: wakeable and phone in /api/clients, wakeable in each marker")
    func json() throws {
        let engine = try engine()
        try engine.feed(report("p1"), ClientReport(phone: PhoneStatus(authorization: .denied, launch: .user)), at: 0)
        let snapshot = try #require(engine.snapshot(of: "p1"))
        let object = try #require(try JSONSerialization.jsonObject(with: WireCoding.makeEncoder().encode(snapshot)) as? [String: Any])
        #expect(object["wakeable"] as? String == "no")
        #expect((object["phone"] as? [String: Any])?["authorization"] as? String == "denied")
        let encoded = try JSONEncoder().encode(try #require(engine.markers().first))
        let marker = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        #expect(marker["wakeable"] as? String == "no")
    }

    @Test("/metrics counts the phones that cannot be woken (beaconfleet_coordinator_unwakeable_phones)")
    func gauge() async throws {
        let metrics = CoordinatorMetrics()
        let core = try CoordinatorCore(
            venue: try TestVenue.make(budget: 10), configuration: .init(budget: 10), store: nil, metrics: metrics,
            logger: Logger(label: "test"))
        let decoder = InboundDecoder(topics: topics)
        func send(_ id: String, _ phone: PhoneStatus) async throws {
            _ = await core.process([
                InboundMessage(topic: report(id), payload: try WireCoding.encode(ClientReport(phone: phone)), decoder: decoder)
            ])
        }
        try await send("p1", PhoneStatus(authorization: .whenInUse))
        try await send("p2", PhoneStatus(backgroundRefresh: .restricted))
        try await send("p3", Self.wakeable)
        #expect(metrics.render().contains("beaconfleet_coordinator_unwakeable_phones 2"), "\(metrics.render())")
        try await send("p2", Self.wakeable)
        #expect(metrics.render().contains("beaconfleet_coordinator_unwakeable_phones 1"))
    }
}
