import Coordinator
import Foundation
import Testing
import WireProtocol

/// Reconciliation against what iOS really holds never loops: the app's own regions in
/// `monitored`, a phone with fewer slots than planned, or one that keeps refusing some regions
/// each get at most one answer.
@Suite("Coordinator reconciliation")
struct ReconciliationTests {
    let topics = TestVenue.topics
    func report(_ id: String) -> String { topics.clientReport(try! Identifier(id)) }

    func engine(budget: Int, planner: PlannerChoice = .frontier) throws -> CoordinatorEngine {
        CoordinatorEngine(venue: try TestVenue.make(budget: budget, planner: planner), configuration: .init(budget: budget))
    }

    /// Plays a phone for `rounds` reports: each applies the latest `regions` message as `hold`
    /// says iOS lets it, then reports what it holds (plus `extra` ids of the app's own) and the
    /// applied version. Returns every `regions` message published.
    func play(
        _ engine: CoordinatorEngine, rounds: Int, budget: Int? = nil, extra: [String] = [], hold: ([String]) -> [String]
    ) throws -> [RegionsMessage] {
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r10")], budget: budget), at: 0)
        var published = engine.step(at: 0).regionsMessages.map(\.1)
        for round in 1...rounds {
            let latest = try #require(published.last)
            let held = hold(latest.regions.map(\.id)) + extra
            try engine.feed(report("p"), ClientReport(monitored: held, budget: budget, version: latest.version), at: Double(round))
            published += engine.step(at: Double(round)).regionsMessages.map(\.1)
        }
        return published
    }

    @Test("the same report listing one of the app's own regions, ten times: exactly one version")
    func appRegionsInMonitored() throws {
        let engine = try engine(budget: 5)
        let published = try play(engine, rounds: 10, extra: ["app-own-geofence"]) { $0 }
        #expect(published.count == 1, "\(published.map(\.reason))")
        #expect(engine.counters.reconciliations == 0)
    }

    @Test(
        "a phone whose iOS holds only 6 of the 10 its budget allows (RegionSync keeps the head of the set): two answers, then the set fits")
    func phoneWithFewerSlots() throws {
        let engine = try engine(budget: 10)
        let published = try play(engine, rounds: 10, budget: 10) { Array($0.prefix(6)) }
        // The first shortfall is sent again (iOS may take it back); the second sets the capacity.
        #expect(published.count == 3, "\(published.map { "\($0.reason) \($0.regions.count)" })")
        let last = try #require(published.last)
        #expect(last.reason == "reconcile" && last.regions.count == 6 && last.budget == 6, "planned for what the phone can hold")
        #expect(engine.counters.reconciliations == 2)
    }

    @Test("reports without a version (the phone has applied nothing yet) are never compared: no reconcile, never a budget of 0")
    func reportsBeforeAnyAnswer() throws {
        let engine = try engine(budget: 10)
        var published: [RegionsMessage] = []
        for round in 0..<5 {
            try engine.feed(
                report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r10")], monitored: [], budget: 10), at: Double(round))
            published += engine.step(at: Double(round)).regionsMessages.map(\.1)
        }
        #expect(!published.isEmpty && !published.contains { $0.reason == "reconcile" }, "\(published.map(\.reason))")
        #expect(published.allSatisfy { $0.budget == 10 && $0.regions.count == 10 })
        #expect(engine.counters.reconciliations == 0)
    }

    @Test("a phone that applied a version and holds none of it twice: its capacity is 1, never 0 (only its own budget says 0)")
    func holdingNothingIsNotZeroCapacity() throws {
        let engine = try engine(budget: 10)
        let published = try play(engine, rounds: 6, budget: 10) { _ in [] }
        #expect(published.allSatisfy { $0.budget >= 1 }, "\(published.map { "\($0.reason) \($0.budget)" })")
        #expect(published.last.map { $0.regions.count >= 1 } == true)
    }

    @Test("a phone that states a budget of 0 gets an empty set, and holding nothing is agreement")
    func zeroBudget() throws {
        let engine = try engine(budget: 5)
        let published = try play(engine, rounds: 5, budget: 0) { Array($0.prefix(0)) }
        #expect(published.count == 1)
        #expect(published.first?.regions.isEmpty == true && published.first?.budget == 0)
    }

    @Test("a phone whose iOS holds at most 7 and refuses the adds past that (whatever their place in the set): the set comes to fit")
    func refusedAdds() throws {
        let engine = try engine(budget: 10)
        var holding: [String] = []
        let published = try play(engine, rounds: 10, budget: 10) { ids in
            holding.removeAll { !ids.contains($0) }
            for id in ids where !holding.contains(id) && holding.count < 7 { holding.append(id) }
            return holding
        }
        #expect(published.count <= 3, "\(published.map { "\($0.reason) \($0.regions.count)" })")
        #expect(published.last?.regions.count == 7)
        #expect(Set(published.last?.regions.map(\.id) ?? []) == Set(holding), "in agreement at the end")
    }

    @Test("a region the phone no longer holds, or the plan no longer monitors, leaves its inside set: it can never fire an exit")
    func insideFollowsHeld() throws {
        // The nearest-N planner keeps a region the phone is inside; the phone says it dropped it.
        let engine = try engine(budget: 5, planner: .nearest)
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r10")]), at: 0)
        let first = try #require(engine.step(at: 0).regionsMessages.first?.1)
        #expect(engine.snapshot(of: "p")?.inside == ["r10"])
        let held = first.regions.map(\.id).filter { $0 != "r10" }
        try engine.feed(report("p"), ClientReport(monitored: held, version: first.version), at: 1)
        _ = engine.step(at: 1)
        #expect(engine.snapshot(of: "p")?.inside == [])
        // The frontier planner leaves out a region the phone has reached (its arrival is already
        // told): then the phone cannot exit it either. Whatever it plans, inside ⊆ the set.
        let frontier = try self.engine(budget: 5)
        for (step, region) in ["r10", "r11", "r12", "r14"].enumerated() {
            try frontier.feed(report("f"), ClientReport(events: [RegionEvent(type: .enter, region: region)]), at: Double(step))
            _ = frontier.step(at: Double(step))
            let snapshot = try #require(frontier.snapshot(of: "f"))
            #expect(Set(snapshot.inside).isSubset(of: snapshot.regions), "inside \(snapshot.inside), set \(snapshot.regions)")
        }
    }
}
