@testable import Coordinator
import Foundation
import Testing
import WireProtocol

/// A member that gains a partition starts each client from the position the previous owner published.
@Suite("Handover: the position another member published")
struct HandoverSeedTests {
    func record(_ engine: CoordinatorEngine, _ client: String) throws -> ClientRecord {
        try #require(engine.table.byID[client].flatMap { engine.table.records[Int($0)] })
    }

    @Test("an adopted set's position becomes the client's when this engine has none as recent; an older one does not")
    func seedsThePosition() throws {
        let engine = CoordinatorEngine(topics: TestVenue.topics, venue: try TestVenue.make())
        let level = try #require(engine.venue.estimator.levels.first)
        var message = RegionsMessage(
            version: 5_000, budget: 20, regions: [], add: [], remove: [], position: Position(x: 3, y: 4, level: level, confidence: 2), reason: "moved")
        message.coordinator = "previous"
        message.time = Date(timeIntervalSince1970: Double(TestVenue.millis(10)) / 1000)
        engine.adoptPublished(client: "p", message: message, now: TestVenue.millis(10))
        let seeded = try #require(try record(engine, "p").location)
        #expect(seeded.x == 3 && seeded.y == 4 && seeded.variance == 4)
        // An older set (published before, arriving late) does not move it back.
        var older = message
        older.version = 5_001
        older.position = Position(x: 9, y: 9, level: level, confidence: 2)
        older.time = Date(timeIntervalSince1970: Double(TestVenue.millis(5)) / 1000)
        engine.adoptPublished(client: "p", message: older, now: TestVenue.millis(11))
        let kept = try #require(try record(engine, "p").location)
        #expect(kept.x == 3 && kept.y == 4)
        #expect(engine.version(of: "p") == 5_001)
    }
}
