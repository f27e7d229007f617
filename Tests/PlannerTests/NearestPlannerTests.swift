import Foundation
import Planner
import TestSupport
import Testing
import Topology

/// The slot model, hysteresis, the diff and "valid for", checked by hand on a corridor and
/// against an independent full Dijkstra on the example and generated venues.
@Suite struct NearestPlannerTests {
    func at(_ venue: Topology, _ x: Double) throws -> GraphLocation {
        try venue.snap(VenuePoint(x: x, y: 0, level: "L0"))
    }

    @Test func withoutAPreviousSetThePlanIsPinnedThenExactlyTheNearest() throws {
        for name in ["museum", "mall", "tetam"] {
            let venue = try PlannerFixture.example(name)
            let reference = try ReferenceDijkstra(exportedJSON: TopologyExporter().json(venue))
            let planner = NearestPlanner(topology: venue)
            let search = WalkingDistanceSearch(topology: venue)
            let pinned = venue.pinnedRegions.map { venue.regions[$0].id }
            for (index, region) in venue.regions.enumerated() where region.position != nil && index % 3 == 0 {
                for budget in [20, 7] {
                    let plan = planner.plan(
                        PlanRequest(location: venue.location(ofRegion: index)!, budget: budget, now: PlannerFixture.epoch), using: search)
                    let nearest = reference.ranking(fromRegion: region.id).filter { !pinned.contains($0.id) }.prefix(budget - pinned.count)
                    #expect(plan.ids == pinned + nearest.map(\.id), "\(name) from \(region.id), budget \(budget)")
                    for (planned, expected) in zip(plan.regions.dropFirst(pinned.count), nearest) {
                        #expect(abs(planned.distance! - expected.distance) < 1e-9)
                    }
                    #expect(plan.added.map(\.id) == plan.ids && plan.removed.isEmpty)
                }
            }
        }
    }

    @Test func generatedVenueFromSnappedPositionsMatchesFullDijkstra() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("planner-gen-\(UUID().uuidString)")
        try VenueGenerator(regions: 2500, levels: 2, seed: 21).write(to: directory)
        let venue = try Topology.load(directory: directory)
        let reference = try ReferenceDijkstra(exportedJSON: TopologyExporter().json(venue))
        let planner = NearestPlanner(topology: venue)
        let search = WalkingDistanceSearch(topology: venue)
        var random = SplitMix64(seed: 4)
        for _ in 0..<25 {
            let x = Double(random.int(in: 0...8000)) / 100
            let y = Double(random.int(in: 0...8000)) / 100
            let level = random.int(in: 0...1) == 0 ? "L0" : "L1"
            let plan = planner.plan(
                PlanRequest(location: try venue.snap(VenuePoint(x: x, y: y, level: level)), now: PlannerFixture.epoch), using: search)
            let expected = ["venue"] + reference.ranking(x: x, y: y, level: level).prefix(19).map(\.id)
            #expect(plan.ids == expected, "at \(x),\(y),\(level)")
        }
    }

    @Test func corridorPlanWorkedOutByHand() throws {
        let venue = try PlannerFixture.corridor()
        let planner = NearestPlanner(
            topology: venue, configuration: PlannerConfiguration(budget: 4, margin: 1, swapThreshold: 3, guardDistance: 0.5))
        // At x = 0: pinned, inside r1, then r2 (9 m to its edge) and r3 (19 m); r4 is 29 m away.
        let first = planner.plan(PlanRequest(location: try at(venue, 0), now: PlannerFixture.epoch))
        #expect(first.ids == ["all", "r1", "r2", "r3"])
        #expect(first.regions.map(\.slot) == [.pinned, .inside, .nearest, .nearest])
        #expect(first.regions.map(\.distance) == [nil, 0, 9, 19])
        #expect(first.validFor == 29)
        #expect(first.plannedAt == PlannerFixture.epoch)
        // At x = 14, r1 (13 m) still ranks third of three free slots: nothing changes.
        let second = planner.plan(PlanRequest(location: try at(venue, 14), monitored: first.indices, now: PlannerFixture.epoch))
        #expect(second.ids == ["all", "r2", "r3", "r1"] && !second.isChanged)
        #expect(second.validFor == 15)
        // At x = 22 the ranking is r3 (1), r4 (7), r2 (11), r5 (17), r1 (21): r1 ranks fifth, beyond
        // 3 slots + margin 1, so it goes and r4 comes.
        let third = planner.plan(PlanRequest(location: try at(venue, 22), monitored: second.indices, now: PlannerFixture.epoch))
        #expect(third.ids == ["all", "r3", "r4", "r2"])
        #expect(third.added.map(\.id) == ["r4"] && third.removedIDs(in: venue) == ["r1"])
        #expect(third.validFor == 17)
    }

    @Test func aSwapMustGainMoreThanTheThreshold() throws {
        let venue = try PlannerFixture.corridor()
        let previous = venue.indices(["all", "r1", "r2", "r3"])
        // At x = 16: r3 (3), r2 (5), r4 (13), r1 (15). r1 ranks fourth, within 3 + margin 2.
        // r4 would gain 2 m over r1: below a 3 m threshold, above a 1 m one.
        let sticky = NearestPlanner(
            topology: venue, configuration: PlannerConfiguration(budget: 4, margin: 2, swapThreshold: 3, guardDistance: 0.5))
        let kept = sticky.plan(PlanRequest(location: try at(venue, 16), monitored: previous, now: PlannerFixture.epoch))
        #expect(kept.ids == ["all", "r3", "r2", "r1"] && !kept.isChanged)
        #expect(kept.validFor == 13)
        let eager = NearestPlanner(
            topology: venue, configuration: PlannerConfiguration(budget: 4, margin: 2, swapThreshold: 1, guardDistance: 0.5))
        let swapped = eager.plan(PlanRequest(location: try at(venue, 16), monitored: previous, now: PlannerFixture.epoch))
        #expect(swapped.ids == ["all", "r3", "r2", "r4"])
        #expect(swapped.added.map(\.id) == ["r4"] && swapped.removedIDs(in: venue) == ["r1"])
        // Within the guard distance a region is taken whatever the threshold.
        let guarded = NearestPlanner(
            topology: venue, configuration: PlannerConfiguration(budget: 4, margin: 2, swapThreshold: 100, guardDistance: 14))
        #expect(guarded.plan(PlanRequest(location: try at(venue, 16), monitored: previous, now: PlannerFixture.epoch)).ids.contains("r4"))
    }

    @Test func insideRegionsAreNeverRemovedWhileInside() throws {
        let venue = try PlannerFixture.corridor()
        let planner = NearestPlanner(
            topology: venue, configuration: PlannerConfiguration(budget: 3, margin: 0, swapThreshold: 0, guardDistance: 0))
        // At x = 50 the nearest are r6, r5; the phone says it is still inside r1, 49 m away.
        let plan = planner.plan(
            PlanRequest(
                location: try at(venue, 50), monitored: venue.indices(["all", "r1", "r2"]), inside: venue.indices(["r1"]),
                now: PlannerFixture.epoch))
        #expect(plan.ids == ["all", "r6", "r1"])
        #expect(plan.regions.map(\.slot) == [.pinned, .inside, .inside])
        #expect(plan.regions[2].distance == 49)
        #expect(plan.removedIDs(in: venue) == ["r2"])
    }

    @Test func theDiffIsTheSmallestAndNeverResendsAnUnchangedRegion() throws {
        let venue = try PlannerFixture.example("mall")
        let planner = NearestPlanner(topology: venue)
        let search = WalkingDistanceSearch(topology: venue)
        var monitored = venue.indices(["mall", "L1-shop-s01-front", "L1-shop-s01-front"])  // a duplicate
        for x in stride(from: 3.0, through: 117, by: 4) {
            let plan = planner.plan(
                PlanRequest(
                    location: try venue.snap(VenuePoint(x: x, y: 20, level: "L1")), monitored: monitored, now: PlannerFixture.epoch),
                using: search)
            #expect(Set(plan.added.map(\.region)).isDisjoint(with: monitored))
            #expect(Set(plan.removed).isDisjoint(with: plan.indices))
            #expect(Set(plan.removed) == Set(monitored).subtracting(plan.indices))
            #expect(plan.removed.count == Set(plan.removed).count)
            // Removes then adds turn the old set into the new one.
            let applied = Set(monitored).subtracting(plan.removed).union(plan.added.map(\.region))
            #expect(applied == Set(plan.indices))
            #expect(plan.ids.count == 20 && Set(plan.ids).count == 20)
            monitored = plan.indices
        }
    }

    @Test func validForIsTheWalkToTheNearestUnmonitoredRegion() throws {
        let venue = try PlannerFixture.example("museum")
        let reference = try ReferenceDijkstra(exportedJSON: TopologyExporter().json(venue))
        let planner = NearestPlanner(topology: venue)
        var monitored: [Int] = []
        for y in stride(from: 2.0, through: 52, by: 1.5) {
            let plan = planner.plan(
                PlanRequest(location: try venue.snap(VenuePoint(x: 10, y: y, level: "G")), monitored: monitored, now: PlannerFixture.epoch))
            let unmonitored = reference.ranking(x: 10, y: y, level: "G").filter { !plan.ids.contains($0.id) }
            #expect(plan.validFor == unmonitored.first?.distance ?? .infinity, "at y = \(y)")
            monitored = plan.indices
        }
    }

    @Test func budgetsSmallerThanThePinnedSetAndZero() throws {
        let venue = try PlannerFixture.example("mall")
        let planner = NearestPlanner(topology: venue)
        let location = try venue.snap(VenuePoint(x: 50, y: 20, level: "L1"))
        let two = planner.plan(
            PlanRequest(location: location, monitored: venue.indices(["L1-concourse-05"]), budget: 2, now: PlannerFixture.epoch))
        #expect(two.ids == ["mall", "mall-L1"])
        #expect(two.removedIDs(in: venue) == ["L1-concourse-05"])
        let none = planner.plan(PlanRequest(location: location, monitored: venue.indices(["mall"]), budget: 0, now: PlannerFixture.epoch))
        #expect(none.ids.isEmpty && none.removedIDs(in: venue) == ["mall"])
        // A client cannot ask for more than the configured budget.
        #expect(planner.plan(PlanRequest(location: location, budget: 50, now: PlannerFixture.epoch)).ids.count == 20)
    }

    @Test func theSameInputsGiveTheSamePlan() throws {
        let venue = try PlannerFixture.example("mall")
        let planner = NearestPlanner(topology: venue)
        let search = WalkingDistanceSearch(topology: venue)
        let request = PlanRequest(
            location: try venue.snap(VenuePoint(x: 61, y: 22, level: "L2")), monitored: venue.indices(["mall", "L2-shop-n01-front"]),
            inside: venue.indices(["L1-anchor-west-1"]), budget: 12, now: PlannerFixture.epoch)
        let first = planner.plan(request, using: search)
        _ = planner.plan(PlanRequest(location: try venue.snap(VenuePoint(x: 3, y: 20, level: "L1")), now: .distantFuture), using: search)
        #expect(planner.plan(request, using: search) == first)
        #expect(planner.plan(request) == first)
    }

    /// Walking the mall's concourses (and up the stairs), re-planning every metre: the client never
    /// enters an unmonitored region, and hysteresis changes the set less often than none.
    @Test func walkingTheMallHysteresisCoversEveryEntryAndChurnsLess() throws {
        let venue = try PlannerFixture.example("mall")
        let search = WalkingDistanceSearch(topology: venue)
        // Along the ground floor, back to the stairs at x = 111, up them (14 m of walking in one
        // step, so entries right after it are not counted), and along the first floor.
        var path: [VenuePoint] = []
        for x in stride(from: 3.0, through: 117, by: 1) { path.append(VenuePoint(x: x, y: 20, level: "L1")) }
        for x in stride(from: 116.0, through: 111, by: -1) { path.append(VenuePoint(x: x, y: 20, level: "L1")) }
        for x in stride(from: 111.0, through: 3, by: -1) { path.append(VenuePoint(x: x, y: 20, level: "L2")) }
        func walk(_ configuration: PlannerConfiguration) throws -> (churn: Int, missed: Int) {
            let planner = NearestPlanner(topology: venue, configuration: configuration)
            var monitored: [Int] = []
            var churn = 0
            var missed = 0
            var level = path[0].level
            for point in path {
                let location = try venue.snap(point)
                let climbed = point.level != level
                level = point.level
                // Entries: regions whose edge the client is now inside, checked before re-planning.
                for entry in search.nearestRegions(from: location, count: 30) where entry.distance == 0 {
                    if !climbed, !monitored.isEmpty, !monitored.contains(entry.region) { missed += 1 }
                }
                let plan = planner.plan(PlanRequest(location: location, monitored: monitored, now: PlannerFixture.epoch), using: search)
                if !monitored.isEmpty { churn += plan.added.count + plan.removed.count }
                monitored = plan.indices
            }
            return (churn, missed)
        }
        let sticky = try walk(PlannerConfiguration())
        let eager = try walk(.withoutHysteresis())
        #expect(sticky.missed == 0 && eager.missed == 0)
        #expect(sticky.churn < eager.churn, "hysteresis \(sticky.churn) vs none \(eager.churn)")
    }
}

/// A position's uncertainty brings in the regions the client may really be in, even across a wall.
@Suite struct UncertaintyTests {
    @Test func regionsWithinTheUncertaintyComeFirstEvenBehindAWall() throws {
        let mall = try PlannerFixture.example("mall")
        // In shop s05 (x = 27), near its east wall: shop s06's left region (x = 31.5, y = 5) is 3 m
        // away in a straight line but a long walk around through both doors and the concourse.
        let location = try mall.snap(VenuePoint(x: 28.5, y: 5, level: "L1"))
        let planner = NearestPlanner(topology: mall, configuration: PlannerConfiguration(budget: 8))
        let exact = planner.plan(PlanRequest(location: location, now: PlannerFixture.epoch))
        #expect(!exact.ids.contains("L1-shop-s06-left"))
        let uncertain = planner.plan(PlanRequest(location: location, uncertainty: 2, now: PlannerFixture.epoch))
        #expect(uncertain.ids.contains("L1-shop-s06-left"))
        // Every region within 2 m (+ snap offset) in a straight line is there.
        for index in mall.regions(near: location.point, within: 2 + location.offset) {
            #expect(uncertain.ids.contains(mall.regions[index].id))
        }
        #expect(uncertain.ids.count == 8)
        // With no uncertainty the plan is the pure walking-distance one.
        #expect(planner.plan(PlanRequest(location: location, uncertainty: 0, now: PlannerFixture.epoch)) == exact)
    }

    @Test func straightLineProximityMatchesBruteForce() throws {
        let mall = try PlannerFixture.example("mall")
        var random = SplitMix64(seed: 8)
        for _ in 0..<200 {
            let point = VenuePoint(
                x: Double(random.int(in: -2500...14500)) / 100, y: Double(random.int(in: -500...4500)) / 100,
                level: random.int(in: 0...1) == 0 ? "L1" : "L2")
            let radius = Double(random.int(in: 0...800)) / 100
            let expected = mall.regions.indices.filter { index in
                guard let p = mall.regions[index].position, p.level == point.level else { return false }
                return ((p.x - point.x) * (p.x - point.x) + (p.y - point.y) * (p.y - point.y)).squareRoot() - mall.regions[index].radius
                    <= radius
            }
            #expect(mall.regions(near: point, within: radius) == expected)
        }
    }
}
