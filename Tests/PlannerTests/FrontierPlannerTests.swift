import Foundation
import Testing
import TestSupport
import Topology

@testable import Planner

/// The wake-frontier planner: regions the phone may already detect first (monitoring them now is
/// iOS telling the app), then quiet regions whose detection wakes the phone before it can reach
/// any region left out.
@Suite struct FrontierPlannerTests {
    /// `count` regions every `spacing` metres along a corridor at y = 0 (radius 1.5, detection 10 m
    /// at the default power), a pinned UUID-only region, linked in a line.
    static func corridor(count: Int, spacing: Double) throws -> Topology {
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\nall,,,,,,,,pinned\n"
        var links = "from,to\n"
        for index in 0..<count {
            regions += "c\(index),,1,\(index + 1),\(Double(index) * spacing),0,L0,1.5,\n"
            if index > 0 { links += "c\(index - 1),c\(index)\n" }
        }
        return try PlannerFixture.venue(regions: regions, links: links)
    }

    /// Two corridors of 11 regions 6 m apart from x = 0, each linked in a line: `a0`…`a10` at y = 0
    /// on L0 and `b0`…`b10` at `y` on `level`. `regions` and `links` (rows of `regions.csv` and of
    /// `links.csv` with the columns `from,to,distance,kind`) come before theirs.
    static func corridors(
        bAt y: Int, on level: String, regions: String = "", links: String, levels: String = "id\nL0\n"
    ) throws -> Topology {
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\n" + regions
        var links = "from,to,distance,kind\n" + links
        for index in 0...10 {
            regions += "a\(index),,1,\(index + 1),\(index * 6),0,L0,1.5,\nb\(index),,2,\(index + 1),\(index * 6),\(y),\(level),1.5,\n"
            if index > 0 { links += "a\(index - 1),a\(index),,\nb\(index - 1),b\(index),,\n" }
        }
        return try PlannerFixture.venue(regions: regions, links: links, levels: levels)
    }

    /// The configuration the hand-worked corridor cases below were drawn for: a 3 m wake margin and
    /// 5 frontier slots, so a 19-slot budget holds every region in reach and a shield every 11 m.
    static let handWorked = FrontierPlannerConfiguration(wakeMargin: 3, frontierReserve: 5)

    func request(_ topology: Topology, x: Double, monitored: [String] = [], inside: [String] = [], uncertainty: Double = 0) throws
        -> PlanRequest
    {
        PlanRequest(
            location: try topology.snap(VenuePoint(x: x, y: 0, level: "L0")), monitored: topology.indices(monitored),
            inside: topology.indices(inside),
            uncertainty: uncertainty, now: Date(timeIntervalSince1970: 0))
    }

    /// Two parallel corridors 8 m apart, joined only at their far end, 60 m away: a region across
    /// the gap is 8 m away in a straight line and 128 m by the graph. The plan counts at most
    /// `detourLimit` times the straight line (a snapped estimate on the wrong corridor is likelier
    /// than a phone walking round), and the graph's distance without a limit.
    @Test func aDetourLongerThanTheLimitCountsAsTheShortWay() throws {
        let venue = try Self.corridors(bAt: 8, on: "L0", links: "a10,b10,,\n")
        func distance(to id: String, limit: Double) throws -> Double? {
            let planner = FrontierPlanner(topology: venue, configuration: FrontierPlannerConfiguration(detourLimit: limit))
            return try #require(planner.plan(try request(venue, x: 0)).regions.first { $0.id == id }).distance
        }
        let limited = try #require(try distance(to: "b0", limit: 1.5))
        #expect(abs(limited - (8 - 1.5) * 1.5) < 0.01)
        let graph = try #require(try distance(to: "b0", limit: .infinity))
        #expect(graph > 120)
        // A region on the phone's own corridor keeps its walking distance.
        #expect(abs((try distance(to: "a2", limit: 1.5) ?? 0) - (12 - 1.5)) < 0.01)
    }

    /// Three corridors of 11 regions 6 m apart, L0 to L2, stairs (8 m a flight) from a0 up to b0
    /// and on to c0, and on L1 and L2 a room 7.2 m from the top of the stairs whose only link is
    /// at the corridor's far end, 60 m away: over 120 m by the graph. A phone at the foot of the
    /// stairs passes within its radius a few steps after the climb, one flight or two, so the plan
    /// counts the flights and then `detourLimit` times the straight line from the landing.
    @Test func aRegionByTheLandingCountsAsTheClimbAndTheShortWay() throws {
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\nr1,,4,1,6,4,L1,1.5,\nr2,,4,2,6,4,L2,1.5,\n"
        var links = "from,to,distance,kind\na0,b0,8,stairs\nb0,c0,8,stairs\nb10,r1,,\nc10,r2,,\n"
        for index in 0...10 {
            for (name, major, level) in [("a", 1, "L0"), ("b", 2, "L1"), ("c", 3, "L2")] {
                regions += "\(name)\(index),,\(major),\(index + 1),\(index * 6),0,\(level),1.5,\n"
                if index > 0 { links += "\(name)\(index - 1),\(name)\(index),,\n" }
            }
        }
        let venue = try PlannerFixture.venue(
            regions: regions, links: links, levels: "id,name,elevation\nL0,G,0\nL1,1,5\nL2,2,10\n")
        func distance(to id: String, limit: Double) throws -> Double? {
            let planner = FrontierPlanner(topology: venue, configuration: FrontierPlannerConfiguration(detourLimit: limit))
            return planner.plan(try request(venue, x: 0)).regions.first { $0.id == id }?.distance
        }
        let across = ((36.0 + 16).squareRoot() - 1.5) * 1.5
        let oneFlight = try #require(try distance(to: "r1", limit: 1.5))
        #expect(abs(oneFlight - (8 + across)) < 0.01)
        let twoFlights = try #require(try distance(to: "r2", limit: 1.5))
        #expect(abs(twoFlights - (16 + across)) < 0.01)
        #expect(try distance(to: "r1", limit: .infinity).map { $0 > 120 } ?? true)
    }

    @Test func detectableRegionsFirstThenShieldsForEveryQuietRegionWithinTheHorizon() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)  // 177 m, detection 10 m
        let planner = FrontierPlanner(topology: venue, configuration: Self.handWorked)
        let plan = planner.plan(try request(venue, x: 90))
        #expect(plan.regions.count == 20)
        #expect(plan.regions.first?.id == "all" && plan.regions.first?.slot == .pinned)
        let inside = plan.regions.filter { $0.slot == .inside }.map(\.id)
        // Within the 20 m reach (10 m detection range, a lucky reading 1.5 × 5 dB stronger) of
        // x = 90: x = 72 … 108 → c24…c36, c30 too (the phone is there, but iOS has not told it yet).
        #expect(venue.reachRanges[0].rounded() == 20)
        #expect(Set(inside) == Set((24...36).map { "c\($0)" }), "\(inside)")
        let frontier = plan.regions.filter { $0.slot == .frontier }.map { venue.regionIndex(id: $0.id)! }
        #expect(frontier.count >= Self.handWorked.frontierReserve)
        // Every frontier region is quiet: out of reach now.
        for region in frontier { #expect(abs(venue.regions[region].position!.x - 90) > 20) }
        // Every quiet region within the horizon is monitored or shielded by a frontier region.
        let chosen = Set(plan.regions.map { venue.regionIndex(id: $0.id)! })
        for (index, region) in venue.regions.enumerated() {
            guard let x = region.position?.x, abs(x - 90) > 20, abs(x - 90) - 1.5 <= 40 else { continue }
            #expect(chosen.contains(index) || frontier.contains { planner.shields($0, index) }, "\(region.id) unshielded")
        }
        #expect(plan.validFor > 0)
    }

    /// A monitored region missing from a non-empty inside list is quiet for iOS's own say, unless
    /// the caller says it may have missed that region's enter: then, as for a region not
    /// monitored, what the phone ranged and the geometry decide.
    @Test func aMonitoredRegionOfUnknownStateIsJudgedByTheGeometry() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)
        let planner = FrontierPlanner(topology: venue)
        // At x = 90, c26 (x = 78, within reach) and c40 (x = 120, quiet) are monitored; only c29 is known inside.
        let monitored = ["all", "c26", "c29", "c40"]
        let trusted = planner.plan(try request(venue, x: 90, monitored: monitored, inside: ["c29"]))
        #expect(trusted.regions.first { $0.id == "c26" }?.slot != .inside, "absent from the inside list: quiet for iOS")
        var unknown = try request(venue, x: 90, monitored: monitored, inside: ["c29"])
        unknown.stateUnknown = venue.indices(["c26", "c40"])
        let plan = planner.plan(unknown)
        #expect(plan.regions.first { $0.id == "c26" }?.slot == .inside, "in reach: the phone may well be inside")
        #expect(plan.regions.first { $0.id == "c40" }?.slot != .inside, "out of reach: quiet whatever its state")
    }

    /// The case that found it (`scripts/partition-check --kill-node msgs`, 16 × 150, the mall): a
    /// phone on L2 walking towards the way down, its coordinator back from 11 s cut off from the
    /// broker, the enters of regions the phone was in unseen. Its monitored list, ranged beacons
    /// and position are those of that report. With three of them missing from `inside` the plan
    /// gave them frontier slots (2 of L1's regions left; none in the sets published); marked
    /// unknown, the plan is the one the phone's true inside list gives.
    @Test func regionsOfUnknownStatePlanAsTheTrueInsideListOnTheMall() throws {
        let mall = try Topology.load(directory: SharedData.packageRoot.appendingPathComponent("topology/mall"), budget: 20)
        let planner = FrontierPlanner(topology: mall, configuration: Self.handWorked)
        let search = WalkingDistanceSearch(topology: mall)
        let monitored = [
            "mall", "mall-L1", "mall-L2", "L2-shop-n07-front", "L2-shop-s07-front", "L2-shop-n06-front", "L2-shop-s06-front",
            "L2-shop-n08-left", "L2-shop-n08-right", "L2-shop-s08-left", "L2-shop-n10-front", "L2-shop-s10-front", "L2-shop-n08-front",
            "L2-shop-s08-front", "L2-concourse-05", "L2-shop-n09-front", "L2-shop-s09-front", "L2-concourse-03",
        ]
        let missed = ["L2-concourse-05", "L2-shop-n08-front", "L2-shop-s08-front"]  // re-entered while it was cut off
        let trueInside = monitored  // iOS had fired an enter for every region it monitored
        let heard = [
            "L2-concourse-05", "L2-shop-s10-front", "L2-shop-n09-front", "L2-concourse-04", "L2-shop-n06-front", "L2-shop-n09-left",
            "L2-shop-s12-front", "L2-shop-n02-front", "L2-shop-n07-front",
        ]
        func plan(inside: [String], unknown: [String] = []) throws -> [String] {
            let location = try mall.snap(VenuePoint(x: 49.08, y: 20.07, level: "L2"))
            let request = PlanRequest(
                location: location, monitored: mall.indices(monitored), inside: mall.indices(inside), heard: mall.indices(heard),
                stateUnknown: mall.indices(unknown), budget: 18,
                uncertainty: 3.86, now: Date(timeIntervalSince1970: 0))
            return planner.plan(request, using: search).regions.map(\.id)
        }
        let truth = try plan(inside: trueInside)
        #expect(truth.contains("L1-concourse-05"), "the way down is shielded: \(truth)")
        let seen = trueInside.filter { !missed.contains($0) }
        #expect(try Set(plan(inside: seen, unknown: monitored.filter { !seen.contains($0) })) == Set(truth))
    }

    /// A region iOS has already told the app about on this approach has had what the approach
    /// needs: the regions in range not yet told take the inside slots, the frontier the rest, and a
    /// told one keeps a slot only when one is left.
    @Test func toldRegionsLeaveTheirSlotsToThoseNotYetToldAndToTheFrontier() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)
        let planner = FrontierPlanner(
            topology: venue, configuration: FrontierPlannerConfiguration(budget: 8, wakeMargin: 3, frontierReserve: 3))
        var request = try request(venue, x: 90)
        request.heard = venue.indices((26...34).map { "c\($0)" })
        request.told = venue.indices(["c29", "c30", "c31"])
        let plan = planner.plan(request)
        // 8 slots: the pinned one, 3 for the frontier, 4 in range: the nearest not yet told.
        let inside = plan.regions.filter { $0.slot == .inside }.map(\.id)
        #expect(Set(inside) == ["c27", "c28", "c32", "c33"], "\(plan.regions)")
        #expect(plan.regions.count == 8)
        #expect(!plan.regions.contains { ["c29", "c30", "c31"].contains($0.id) }, "\(plan.regions)")
        // Without what iOS told, the nearest in range hold those slots.
        request.told = []
        let untold = planner.plan(request).regions.filter { $0.slot == .inside }.map(\.id)
        #expect(Set(untold) == ["c29", "c30", "c31", "c28"] || Set(untold) == ["c29", "c30", "c31", "c32"], "\(untold)")
    }

    /// When iOS has told the app about every region in range, the nearest of them stays in the
    /// set: its exit wakes the phone once it has left, wherever it went. A monitored set without
    /// one is not kept, however well its quiet regions shield.
    @Test func theNearestToldRegionStaysAsAnExitWire() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)
        let planner = FrontierPlanner(
            topology: venue, configuration: FrontierPlannerConfiguration(budget: 8, wakeMargin: 3, frontierReserve: 3))
        var request = try request(venue, x: 90)
        request.heard = venue.indices(["c29", "c30", "c31"])
        request.told = request.heard
        let plan = planner.plan(request)
        #expect(plan.regions.filter { $0.slot == .inside }.map(\.id) == ["c30"], "\(plan.regions)")
        #expect(plan.regions.count == 8)
        // The same set without its wire, monitored now: planned again, with the wire.
        request.monitored = venue.indices(plan.regions.map(\.id).filter { $0 != "c30" })
        let again = planner.plan(request)
        #expect(again.regions.contains { $0.id == "c30" && $0.slot == .inside }, "\(again.regions)")
        // With one in range not yet told, that one holds the slot, and no told one is needed.
        request.told = venue.indices(["c29", "c30"])
        let untold = planner.plan(request).regions.filter { $0.slot == .inside }.map(\.id)
        #expect(untold == ["c31"], "\(untold)")
    }

    /// A phone may take the stairs asleep: the nearest quiet region of the other level within the
    /// horizon is shielded before the farther ones of its own, although two of those are nearer.
    @Test func anotherLevelWithinTheHorizonGetsATripWireFirst() throws {
        // Two corridors of 40 regions 3 m apart, L1 5 m above L0, stairs from c26 to u26 (x = 78).
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\nall,,,,,,,,pinned\n"
        var links = "from,to,distance,kind\nc26,u26,8,stairs\n"
        for index in 0..<40 {
            regions += "c\(index),,1,\(index + 1),\(index * 3),0,L0,1.5,\nu\(index),,2,\(index + 1),\(index * 3),0,L1,1.5,\n"
            if index > 0 { links += "c\(index - 1),c\(index),,\nu\(index - 1),u\(index),,\n" }
        }
        let venue = try PlannerFixture.venue(regions: regions, links: links, levels: "id,name,elevation\nL0,G,0\nL1,1,5\n")
        let planner = FrontierPlanner(topology: venue, configuration: FrontierPlannerConfiguration(budget: 6, wakeMargin: 3))
        // At x = 60 (c20): c13 and c27 (19.5 m to their edges) are the nearest quiet regions on L0,
        // u26 on L1 18 m and the stairs (8 m) away; two frontier slots.
        let plan = planner.plan(try request(venue, x: 60))
        let frontier = plan.regions.filter { $0.slot == .frontier }.map(\.id)
        #expect(frontier.count == 2, "\(plan.regions)")
        #expect(frontier.contains { $0.hasPrefix("u") }, "no trip wire on L1: \(frontier)")
        #expect(frontier.contains { $0.hasPrefix("c") }, "\(frontier)")
    }

    @Test func aShieldCoversTheRegionsWhoseArrivalLiesWellInsideItsRange() throws {
        let venue = try Self.corridor(count: 10, spacing: 3)
        let planner = FrontierPlanner(topology: venue, configuration: Self.handWorked)
        // 10 m range, 1.5 m radius, 3 m margin: targets within 5.5 m of the shield.
        #expect(planner.shields(venue.regionIndex(id: "c5")!, venue.regionIndex(id: "c4")!))  // 3 m
        #expect(!planner.shields(venue.regionIndex(id: "c5")!, venue.regionIndex(id: "c3")!))  // 6 m
    }

    /// Once the phone has ranged lately, what it ranged says what it detects, not the venue file's
    /// radio: a region in geometric reach the phone did not hear is quiet (its beacon may be
    /// weaker than declared), so it can be a trip wire.
    @Test func whatThePhoneRangedOutweighsTheGeometry() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)
        let planner = FrontierPlanner(topology: venue, configuration: Self.handWorked)
        var request = try request(venue, x: 90)
        request.heard = venue.indices(["c29", "c30", "c31"])
        request.told = venue.indices(["c30"])
        let plan = planner.plan(request)
        // In range: the two heard and not yet told (c30, where the phone is, was), none of the others.
        let inside = Set(plan.regions.filter { $0.slot == .inside }.map(\.id))
        #expect(inside == ["c29", "c31"], "\(plan.regions)")
        // c27 (9 m, within the declared 20 m reach) was not heard: a shield now.
        #expect(
            plan.regions.contains { $0.slot == .frontier && ["c26", "c27", "c28", "c32", "c33", "c34"].contains($0.id) }, "\(plan.regions)")
    }

    /// A region ranged lately but longer ago than the phone's iOS counts as in range (``PlanRequest/warm``)
    /// may still start inside when added: a frontier region only when no cold one is left.
    @Test func warmRegionsAreTripWiresOfLastResort() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)
        let planner = FrontierPlanner(topology: venue, configuration: Self.handWorked)
        var request = try request(venue, x: 90)
        request.heard = venue.indices(["c30"])
        let cold = planner.plan(request).regions.filter { $0.slot == .frontier }.map(\.id)
        request.warm = venue.indices(cold)
        let plan = planner.plan(request).regions.filter { $0.slot == .frontier }.map(\.id)
        #expect(plan.count == cold.count)
        #expect(Set(plan).isDisjoint(with: cold), "cold regions were left: \(plan) against \(cold)")
    }

    /// A phone in the foreground is planned as it walks: its frontier keeps only
    /// ``FrontierPlannerConfiguration/foregroundReserve`` slots, the rest go to regions in range.
    @Test func aPhoneInTheForegroundKeepsASmallerFrontier() throws {
        let venue = try Self.corridor(count: 60, spacing: 1)
        let planner = FrontierPlanner(topology: venue)
        var request = try request(venue, x: 30)
        let suspended = planner.plan(request)
        request.awake = true
        let awake = planner.plan(request)
        #expect(suspended.regions.count(where: { $0.slot == .frontier }) == FrontierPlannerConfiguration().frontierReserve)
        #expect(awake.regions.count(where: { $0.slot == .frontier }) == FrontierPlannerConfiguration().foregroundReserve)
        #expect(awake.regions.count(where: { $0.slot == .inside }) > suspended.regions.count(where: { $0.slot == .inside }))
    }

    /// A beacon the phone ranged a moment ago is *inside* for iOS as soon as it is monitored: it
    /// cannot wake the phone, so it is never a frontier region, however far the estimate puts it.
    @Test func heardRegionsAreNeverFrontier() throws {
        let venue = try Self.corridor(count: 60, spacing: 3)
        let planner = FrontierPlanner(topology: venue)
        let quiet = planner.plan(try request(venue, x: 90)).regions.filter { $0.slot == .frontier }.map(\.id)
        #expect(!quiet.isEmpty)
        var heard = try request(venue, x: 90)
        heard.heard = venue.indices(quiet)
        let plan = planner.plan(heard)
        #expect(plan.regions.filter { $0.slot == .frontier }.allSatisfy { !quiet.contains($0.id) }, "\(plan.regions)")
        #expect(plan.regions.filter { $0.slot == .frontier }.count >= FrontierPlannerConfiguration().frontierReserve)
    }

    @Test func reportedInsideRegionsAreNeverShieldsAndAreKept() throws {
        let venue = try Self.corridor(count: 30, spacing: 3)
        let planner = FrontierPlanner(topology: venue)
        // The phone says it is inside c10 (x = 30) though its estimate is at x = 0: c10 detects it.
        let plan = planner.plan(try request(venue, x: 0, inside: ["c10"]))
        #expect(plan.regions.first { $0.id == "c10" }?.slot == .inside)
    }

    @Test func uncertaintyMakesNearbyQuietRegionsDetectable() throws {
        let venue = try Self.corridor(count: 30, spacing: 3)
        let planner = FrontierPlanner(topology: venue, configuration: Self.handWorked)
        let sure = planner.plan(try request(venue, x: 30))
        let unsure = planner.plan(try request(venue, x: 30, uncertainty: 4))
        #expect(sure.regions.filter { $0.slot == .inside }.count < unsure.regions.filter { $0.slot == .inside }.count)
    }

    @Test func samePlanForTheSameInputsAndTheSmallestDiff() throws {
        let venue = try Self.corridor(count: 40, spacing: 3)
        let planner = FrontierPlanner(topology: venue)
        let first = planner.plan(try request(venue, x: 30))
        #expect(planner.plan(try request(venue, x: 30)) == first)
        let again = planner.plan(try request(venue, x: 30, monitored: first.ids))
        #expect(again.added.isEmpty && again.removed.isEmpty)
        let moved = planner.plan(try request(venue, x: 45, monitored: first.ids))
        #expect(Set(moved.added.map(\.id)).isDisjoint(with: first.ids))
        #expect(Set(moved.removedIDs(in: venue)).isSubset(of: first.ids))
        #expect(moved.regions.count <= 20)
    }

    @Test func aSmallBudgetStillLeavesTheFrontierItsReserve() throws {
        let venue = try Self.corridor(count: 100, spacing: 1)  // 20 regions within 10 m, 60 more within 40 m
        let planner = FrontierPlanner(topology: venue, configuration: FrontierPlannerConfiguration(budget: 10, frontierReserve: 3))
        let plan = planner.plan(try request(venue, x: 50))
        #expect(plan.regions.count == 10)
        #expect(plan.regions.filter { $0.slot == .inside }.count == 6)
        #expect(plan.regions.filter { $0.slot == .frontier }.count == 3)
    }
}
