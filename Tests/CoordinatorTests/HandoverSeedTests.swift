@testable import Coordinator
import Foundation
import Testing
import Topology
import WireProtocol

/// A member that gains a partition starts each client from the position the previous owner published.
@Suite("Handover: the position another member published")
struct HandoverSeedTests {
    func record(_ engine: CoordinatorEngine, _ client: String) throws -> ClientRecord {
        try #require(engine.withClient(client) { $0 })
    }

    /// Another member's set of regions `ids` for `client`, version `version`, adopted at `time`.
    func adopt(_ engine: CoordinatorEngine, _ client: String, _ version: UInt64, _ ids: [String], at time: Double) {
        var message = RegionsMessage(
            version: version, budget: 20, regions: ids.map { engine.venue.regionRefs[Int(engine.venue.topology.regionIndex(id: $0)!)] },
            add: [], remove: [], position: nil, reason: "moved")
        message.coordinator = "other"
        engine.adoptPublished(client: client, message: message, now: TestVenue.millis(time))
    }

    /// The engine plans its own set for `client` (at one place of the test venue) at `time`: the record after.
    func planOwnSet(_ engine: CoordinatorEngine, _ client: String, at time: Double) throws -> ClientRecord {
        let level = try #require(engine.venue.estimator.levels.first)
        return try #require(
            engine.withClient(client) { record in
                engine.plan(&record, at: VenuePoint(x: 3, y: 4, level: level), now: TestVenue.millis(time))
                return record
            })
    }

    @Test("an adopted set's position becomes the client's when this engine has none as recent; an older one does not")
    func seedsThePosition() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let level = try #require(engine.venue.estimator.levels.first)
        var message = RegionsMessage(
            version: 5_000, budget: 20, regions: [], add: [], remove: [], position: Position(x: 3, y: 4, level: level, confidence: 2),
            reason: "moved")
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

    @Test("a successor takes the slots the previous owner planned for as the phone's budget: the phone stating it again re-plans nothing")
    func adoptsTheBudget() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        #expect(engine.configuration.budget == 20)
        var message = RegionsMessage(version: 5_000, budget: 18, regions: [], add: [], remove: [], position: nil, reason: "moved")
        message.coordinator = "previous"
        engine.adoptPublished(client: "p", message: message, now: TestVenue.millis(10))
        #expect(try record(engine, "p").budget.slots == 18)
        // The phone's next report, here, states the budget it stated there: no news.
        try engine.apply(.report(client: "p", ClientReport(budget: 18, version: 5_000)), now: TestVenue.millis(11))
        var taken = try record(engine, "p")
        #expect(!taken.forcePlan && taken.reason != .budget)
        // A budget that changes the slots is news: re-planned, what the phone could hold forgotten.
        try engine.apply(.report(client: "p", ClientReport(budget: 12, version: 5_000)), now: TestVenue.millis(12))
        taken = try record(engine, "p")
        #expect(taken.forcePlan && taken.reason == .budget && taken.budget.slots == 12)
    }

    @Test("a budget first heard re-plans only when it changes the slots: one at or above the coordinator's is no news")
    func budgetAboveTheCoordinatorsIsNoNews() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        try engine.apply(.report(client: "p", ClientReport()), now: TestVenue.millis(10))
        engine.withClient("p") { $0.forcePlan = false }
        try engine.apply(.report(client: "p", ClientReport(budget: 20)), now: TestVenue.millis(11))
        #expect(try !record(engine, "p").forcePlan)
        try engine.apply(.report(client: "p", ClientReport(budget: 19)), now: TestVenue.millis(12))
        let changed = try record(engine, "p")
        #expect(changed.forcePlan && changed.reason == .budget)
        // An adopted set planned for the coordinator's whole budget says nothing of the phone's.
        var message = RegionsMessage(version: 9_000, budget: 20, regions: [], add: [], remove: [], position: nil, reason: "moved")
        message.coordinator = "previous"
        engine.adoptPublished(client: "q", message: message, now: TestVenue.millis(13))
        #expect(try record(engine, "q").budget == .unstated)
    }

    @Test("a report of a client another member serves is kept for a takeover: heard, inside, budget, evidence; nothing planned or emitted")
    func notesAnotherMembersReport() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let r3 = try #require(engine.venue.topology.regionIndex(id: "r3").map(Int32.init))
        let report = ClientReport(
            time: Date(timeIntervalSince1970: Double(TestVenue.millis(10)) / 1000),
            ranged: [RangedBeacon(uuid: TestVenue.regionUUID, major: 1, minor: 3, rssi: -65)],
            events: [RegionEvent(type: .enter, region: "r3")], budget: 18)
        engine.noteReport(client: "p", report: report, now: TestVenue.millis(10))
        var noted = try record(engine, "p")
        #expect(noted.heard.map(\.region) == [r3])
        #expect(noted.inside == [r3])
        #expect(noted.budget.slots == 18 && noted.isPhone)
        #expect(noted.observations.map(\.anchor) == [.region(r3)])
        #expect(engine.dirty.count == 0 && noted.regionEvidence.isEmpty)
        // Nothing to estimate, plan or publish here, and no event emitted: another member serves it.
        _ = engine.flush(now: TestVenue.millis(2_000))
        #expect(engine.take().outputs.isEmpty)
        #expect(engine.version(of: "p") == 0)
        // A second copy of the same report (a QoS 0 copy, a relay) adds nothing; the exit is kept too.
        engine.noteReport(client: "p", report: report, now: TestVenue.millis(10))
        noted = try record(engine, "p")
        #expect(noted.inside == [r3] && noted.observations.count == 1 && noted.heard.count == 1)
        engine.noteReport(client: "p", report: ClientReport(events: [RegionEvent(type: .exit, region: "r3")]), now: TestVenue.millis(11))
        #expect(try record(engine, "p").inside.isEmpty)
    }

    @Test(
        "cut off from the broker, a member no longer trusts its sets' regions, inside or not, nor those of sets adopted before it publishes its own"
    )
    func missedReportsMakeStateUnknown() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let index = { (id: String) throws -> Int32 in try #require(engine.venue.topology.regionIndex(id: id).map(Int32.init)) }
        let (r1, r2, r3) = (try index("r1"), try index("r2"), try index("r3"))
        engine.noteReport(client: "p", report: ClientReport(events: [RegionEvent(type: .enter, region: "r1")]), now: TestVenue.millis(1))
        adopt(engine, "p", 10, ["r1", "r2"], at: 2)
        // Connected, every report was seen: r1 is known inside, r2 outside.
        #expect(try record(engine, "p").stateUnknown.isEmpty)
        engine.missedReports()
        // Cut off, r2 may have been entered, and r1 left (an exit unseen).
        #expect(Set(try record(engine, "p").stateUnknown) == [r1, r2])
        #expect(try record(engine, "p").inside == [r1])
        // A set adopted meanwhile: its regions not known inside are unknown too.
        adopt(engine, "p", 11, ["r1", "r2", "r3"], at: 3)
        let taken = try record(engine, "p")
        #expect(Set(taken.stateUnknown) == [r1, r2, r3] && taken.missedReports)
        // An event for a region makes its state known again.
        engine.noteReport(client: "p", report: ClientReport(events: [RegionEvent(type: .enter, region: "r3")]), now: TestVenue.millis(4))
        engine.noteReport(client: "p", report: ClientReport(events: [RegionEvent(type: .enter, region: "r1")]), now: TestVenue.millis(4))
        #expect(try record(engine, "p").stateUnknown == [r2])
        // This engine's own set: what it drops is no concern, and later adopted sets are trusted again.
        let planned = try planOwnSet(engine, "p", at: 5)
        #expect(planned.version.current > 11 && !planned.missedReports)
        #expect(planned.stateUnknown.allSatisfy { planned.regions.contains($0) })
        #expect(planned.regions.contains(r1))
    }

    @Test(
        "back from a cut, the phone's enter of a region held inside is news (it may have left and come back unseen), as is an exit of a region not held inside"
    )
    func eventsOfUnknownRegionsAreEmitted() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let events = { (type: ClientEvent.Kind, region: String) in
            engine.take().outputs.events.filter { $0.type == type && $0.region == region && $0.client == "p" }.count
        }
        let report = { (type: RegionEvent.Kind, region: String, time: Double) throws in
            let said = [RegionEvent(type: type, region: region)]
            try engine.apply(.report(client: "p", ClientReport(events: said)), now: TestVenue.millis(time))
        }
        try report(.enter, "r1", 1)
        adopt(engine, "p", 10, ["r1", "r2"], at: 2)
        #expect(events(.enter, "r1") == 1)
        // Connected, a second enter of a region held inside is a copy: nothing emitted.
        try report(.enter, "r1", 3)
        #expect(events(.enter, "r1") == 0)
        engine.missedReports()
        // The exit and the new enter went unseen: the enter is emitted, and the set planned again.
        try report(.enter, "r1", 4)
        #expect(events(.enter, "r1") == 1)
        let after = try record(engine, "p")
        #expect(after.forcePlan && after.inside.count == 1)
        // Known again: a copy is no news.
        try report(.enter, "r1", 5)
        #expect(events(.enter, "r1") == 0)
        // r2's enter may have been another member's to emit: its exit is emitted here.
        try report(.exit, "r2", 6)
        #expect(events(.exit, "r2") == 1)
        try report(.exit, "r2", 7)
        #expect(events(.exit, "r2") == 0)
    }

    @Test("a member that first knows a phone after it had sets does not trust the adopted set's regions not known inside")
    func lateMemberMakesStateUnknown() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let index = { (id: String) throws -> Int32 in try #require(engine.venue.topology.regionIndex(id: id).map(Int32.init)) }
        let (r1, r2, r3) = (try index("r1"), try index("r2"), try index("r3"))
        // First known through another member's set (the retained one read on starting): nothing
        // of its regions is known, so all are unknown.
        adopt(engine, "p", 10, ["r1", "r2"], at: 1)
        #expect(Set(try record(engine, "p").stateUnknown) == [r1, r2])
        // First known through a report naming the set it applied: what that report says (r1
        // entered) is known; the rest of the next adopted set is not.
        engine.noteReport(
            client: "q", report: ClientReport(events: [RegionEvent(type: .enter, region: "r1")], monitored: ["r1", "r2"], version: 10),
            now: TestVenue.millis(2))
        adopt(engine, "q", 10, ["r1", "r2", "r3"], at: 3)
        #expect(Set(try record(engine, "q").stateUnknown) == [r2, r3])
        // A phone first heard with its first report (no set applied yet): its history is all here,
        // and an adopted set is trusted.
        engine.noteReport(client: "s", report: ClientReport(events: [RegionEvent(type: .enter, region: "r1")]), now: TestVenue.millis(4))
        adopt(engine, "s", 10, ["r1", "r2"], at: 5)
        #expect(try record(engine, "s").stateUnknown.isEmpty)
        // Its next enter or exit makes a region's state known; this engine's own set trusts again.
        engine.noteReport(client: "q", report: ClientReport(events: [RegionEvent(type: .exit, region: "r3")]), now: TestVenue.millis(6))
        #expect(try record(engine, "q").stateUnknown == [r2])
        let planned = try planOwnSet(engine, "q", at: 7)
        #expect(!planned.missedReports)
        #expect(planned.stateUnknown.allSatisfy { planned.regions.contains($0) })
    }
}
