import Foundation
import Testing
import Topology
import WireProtocol

@testable import Coordinator

/// Tags are located, not planned: no `regions` message, but a position, a room shown through
/// the room filter and room enter/exit events, through the engine.
@Suite struct TagPresenceTests {
    let topics = TestVenue.topics
    func gw(_ id: String) -> String { topics.sightings(try! Identifier(id)) }

    /// The test corridor (x 0…145) cut into two rooms at x = 50; the corridor's links cross it.
    static func venue() throws -> CoordinatorVenue {
        var files = TestVenue.files()
        files["areas.csv"] =
            "id,level,name,kind,polygon\nwest,L0,West hall,room,-5 -5;50 -5;50 5;-5 5\neast,L0,East hall,room,50 -5;150 -5;150 5;50 5\n"
        return try CoordinatorVenue(topology: TestVenue.load(files), budget: 20, estimator: .init())
    }

    @Test("a tag walking from one room into the next: no regions message, one exit and one enter, position.room follows the filter")
    func tagWalksThroughRooms() throws {
        let engine = CoordinatorEngine(venue: try Self.venue())
        var outputs: [CoordinatorOutput] = []
        var shownRooms: [String?] = []
        for step in 0..<80 {
            let x = min(80, 20 + Double(step) * 1.2)  // from x = 20 (west) to x = 80 (east), then stays
            for g in 0...7 where abs(x - Double(g) * 20) < 25 {
                try engine.feed(
                    gw("g\(g)"), TestVenue.batch(seq: UInt64(step + 1), at: Double(step), tags: [(9, abs(x - Double(g) * 20))]),
                    at: Double(step))
            }
            outputs += engine.step(at: Double(step))
            shownRooms.append(engine.snapshot(of: TestVenue.tagID(9))?.position?.room)
        }
        #expect(outputs.regionsMessages.isEmpty, "a tag monitors nothing: no set is published for it")
        #expect(!outputs.contains { if case .clearRegions = $0 { true } else { false } }, "nor cleared")
        let roomEvents = outputs.events.filter { $0.room != nil }
        #expect(roomEvents.map { "\($0.type.rawValue) \($0.room!)" } == ["enter west", "exit west", "enter east"], "\(roomEvents)")
        #expect(roomEvents.allSatisfy { $0.evidence == "presence" && $0.client == TestVenue.tagID(9) })
        #expect(roomEvents.last?.confidence.map { $0 > 0 && $0 <= 1 } == true)
        #expect(shownRooms.first == "West hall" && shownRooms.last == "East hall")
        // The shown room changes once: no flapping while the estimate crosses x = 50.
        let changes = zip(shownRooms, shownRooms.dropFirst()).filter { $0 != $1 }.count
        #expect(changes == 1, "\(shownRooms)")
        #expect(engine.snapshot(of: TestVenue.tagID(9))?.kind == "tag")
    }

    /// A batch from gateway `g` hearing tag 9 at `distance` metres, `hot` dB above the venue's model.
    func hotBatch(seq: UInt64, at seconds: Double, distance: Double, hot: Double) -> [UInt8] {
        let start = Date(timeIntervalSince1970: 1_795_424_400 + seconds)
        let sighting = Sighting(
            format: "ibeacon", uuid: TestVenue.tagUUID, major: 7, minor: 9, address: "AA:BB:CC:DD:EE:01",
            rssi: TestVenue.rssi(distance: distance) + hot, rssiMax: -55, count: 5, txPower: -59, distance: distance)
        return try! WireCoding.encode(SightingsBatch(seq: seq, start: start, end: start.addingTimeInterval(1), sightings: [sighting]))
    }

    @Test("a tag 4 dB louder than the venue's power: the estimate its room goes by learns it, the estimate planning goes by does not")
    func presenceLearnsTheClientsOffset() throws {
        var files = TestVenue.files()
        files["areas.csv"] = "id,level,name,kind,polygon\nhall,L0,Hall,room,-5 -5;150 -5;150 5;-5 5\n"
        let learning = CoordinatorEngine(
            venue: try CoordinatorVenue(topology: TestVenue.load(files), budget: 20, estimator: .init(offsetFloor: -100)))
        files["venue.conf"]! += "presence-offset-gain = 0\n"
        let plain = CoordinatorEngine(
            venue: try CoordinatorVenue(topology: TestVenue.load(files), budget: 20, estimator: .init(offsetFloor: -100)))
        #expect(plain.venue.presenceEstimator == nil)
        for engine in [learning, plain] {
            for step in 0..<120 {
                for g in 0...3 {
                    try engine.feed(
                        gw("g\(g)"), hotBatch(seq: UInt64(step + 1), at: Double(step), distance: abs(31 - Double(g) * 20), hot: 4),
                        at: Double(step))
                }
                _ = engine.step(at: Double(step))
            }
        }
        let record = try #require(learning.withClient(TestVenue.tagID(9)) { $0 })
        #expect(record.location?.offset == 0, "planning goes by the venue's model")
        let offset = try #require(record.presenceLocation?.offset)
        #expect(abs(offset - 4) < 1.5, "learned \(offset) dB, not 4")
        #expect(learning.snapshot(of: TestVenue.tagID(9))?.position?.room == "Hall")
        // A topology reload keeps what was learned (the level is the same); a venue that learns no offset drops it.
        learning.replaceVenue(learning.venue, now: TestVenue.millis(120))
        #expect(learning.withClient(TestVenue.tagID(9)) { $0.presenceLocation?.offset } == offset)
        learning.replaceVenue(plain.venue, now: TestVenue.millis(121))
        #expect(learning.withClient(TestVenue.tagID(9)) { $0.presenceLocation == nil } == true)
        let unlearned = try #require(plain.withClient(TestVenue.tagID(9)) { $0 })
        #expect(unlearned.presenceLocation == nil && unlearned.location?.offset == 0)
        #expect(plain.snapshot(of: TestVenue.tagID(9))?.position?.room == "Hall", "presence goes by the planning estimate")
    }

    @Test("a tag that goes silent leaves its room: an absence exit")
    func absenceExitsTheRoom() throws {
        let engine = CoordinatorEngine(venue: try Self.venue())
        try engine.feed(gw("g1"), TestVenue.batch(seq: 1, at: 0, tags: [(9, 1)]), at: 0)
        #expect(engine.step(at: 0).events.contains { $0.type == .enter && $0.room == "west" })
        var exits: [ClientEvent] = []
        for window in 1...6 {
            try engine.feed(gw("g1"), TestVenue.batch(seq: UInt64(window + 1), at: Double(window), tags: []), at: Double(window))
            exits += engine.step(at: Double(window)).events.filter { $0.type == .exit && $0.room != nil }
        }
        #expect(exits.map(\.room) == ["west"])
        #expect(exits.first?.evidence == "absence")
    }

    @Test("a phone in the same venue is still planned")
    func phonesArePlanned() throws {
        let engine = CoordinatorEngine(venue: try Self.venue())
        let report = ClientReport(ranged: [RangedBeacon(uuid: TestVenue.regionUUID, major: 1, minor: 4, rssi: -60)], budget: 20)
        try engine.apply(.report(client: "phone-1", report), now: TestVenue.millis(0))
        #expect(engine.step(at: 0).regionsMessages.count == 1)
    }
}
