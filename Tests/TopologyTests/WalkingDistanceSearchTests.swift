import Foundation
import TestSupport
import Testing

@testable import Topology

/// The bounded search returns exactly what a full Dijkstra over the exported graph ranks
/// nearest, ties broken by region id, from regions and from snapped positions.
@Suite struct WalkingDistanceSearchTests {
    /// Compares one query's answer with the reference ranking's first `count` entries.
    func expectSame(
        _ answer: [RegionDistance], _ reference: [(id: String, distance: Double)], count: Int, topology: Topology, _ context: String
    ) {
        let expected = Array(reference.prefix(count))
        let ids = answer.map { topology.regions[$0.region].id }
        #expect(ids == expected.map(\.id), "\(context)")
        for (got, want) in zip(answer, expected) {
            #expect(abs(got.distance - want.distance) <= 1e-9 * max(1, want.distance), "\(context): \(got.distance) vs \(want.distance)")
        }
    }

    func check(_ topology: Topology, regionSample: Int, pointSample: Int, seed: UInt64, counts: [Int] = [1, 5, 20]) throws {
        let reference = try ReferenceDijkstra(exportedJSON: TopologyExporter().json(topology))
        let search = WalkingDistanceSearch(topology: topology)
        var random = SplitMix64(seed: seed)
        let placed = topology.regions.indices.filter { topology.regions[$0].position != nil }
        for _ in 0..<regionSample {
            let region = placed[random.int(in: 0...(placed.count - 1))]
            let ranking = reference.ranking(fromRegion: topology.regions[region].id)
            for count in counts {
                let answer = search.nearestRegions(from: topology.location(ofRegion: region)!, count: count)
                expectSame(
                    answer, ranking, count: count, topology: topology, "\(topology.name) from \(topology.regions[region].id), k=\(count)")
            }
        }
        // Random points inside each level's extent, snapped.
        for _ in 0..<pointSample {
            let region = topology.regions[placed[random.int(in: 0...(placed.count - 1))]].position!
            let x = region.x + Double(random.int(in: -600...600)) / 100
            let y = region.y + Double(random.int(in: -600...600)) / 100
            let location = try topology.snap(VenuePoint(x: x, y: y, level: region.level))
            let ranking = reference.ranking(x: x, y: y, level: region.level)
            let answer = search.nearestRegions(from: location, count: 20)
            expectSame(answer, ranking, count: 20, topology: topology, "\(topology.name) at \(x),\(y),\(region.level)")
        }
    }

    @Test func museumMatchesFullDijkstraFromEveryRegion() throws {
        let museum = try Topology.load(directory: VenueFixture.example("museum"))
        try check(museum, regionSample: 60, pointSample: 60, seed: 1, counts: [1, 5, 20, 38, 100])
    }

    @Test func mallMatchesFullDijkstra() throws {
        let mall = try Topology.load(directory: VenueFixture.example("mall"))
        try check(mall, regionSample: 60, pointSample: 60, seed: 2)
    }

    @Test func tetamMatchesFullDijkstra() throws {
        let tetam = try Topology.load(directory: VenueFixture.example("tetam"))
        try check(tetam, regionSample: 30, pointSample: 30, seed: 3)
    }

    @Test func generatedVenuesMatchFullDijkstra() throws {
        for (regions, levels, seed) in [(3000, 3, UInt64(11)), (800, 1, 12)] {
            let directory = try VenueFixture.directory([:])
            try VenueGenerator(regions: regions, levels: levels, seed: seed).write(to: directory)
            let venue = try Topology.load(directory: directory)
            try check(venue, regionSample: 25, pointSample: 25, seed: seed)
        }
    }

    @Test func tiesAreBrokenByRegionID() throws {
        // Four regions at the same distance from the centre waypoint, listed out of id order.
        let files = VenueFixture.small.merging([
            "regions.csv": "id,uuid,major,minor,x,y,level,radius\nd,,1,4,0,-5,L0,1\nb,,1,2,5,0,L0,1\nc,,1,3,0,5,L0,1\na,,1,1,-5,0,L0,1\n",
            "waypoints.csv": "id,x,y,level\nhub,0,0,L0\n",
            "levels.csv": "id\nL0\n",
            "gateways.csv": "id,x,y,level\n",
            "links.csv": "from,to\nhub,a\nhub,b\nhub,c\nhub,d\n",
        ]) { $1 }
        let venue = try Topology.load(directory: try VenueFixture.directory(files))
        let answer = venue.nearestRegions(from: try venue.snap(VenuePoint(x: 0, y: 0, level: "L0")), count: 3)
        #expect(answer.map { venue.regions[$0.region].id } == ["a", "b", "c"])
        #expect(answer.allSatisfy { $0.distance == 4 })
    }

    @Test func distanceIsToTheEdgeAndNeverThroughFloors() throws {
        let venue = try Topology.load(directory: try VenueFixture.directory(VenueFixture.small))
        // Standing on region d (L1, at 0,0): region a is right below it, but the only way down is
        // the stairs at c/e: d→e 20 m, stairs 7 m, c→a 20 m; minus a's radius 1.
        let fromD = try venue.location(ofRegionID: "d")
        let all = venue.nearestRegions(from: fromD, count: 10)
        let distance = Dictionary(uniqueKeysWithValues: all.map { (venue.regions[$0.region].id, $0.distance) })
        #expect(distance["d"] == 0)
        #expect(distance["e"] == 19)
        #expect(distance["a"] == 46)
        #expect(distance["b"] == 35)  // 20 + 7 + 10 - 2
        #expect(distance["everywhere"] == nil)  // unplaced regions are never ranked
        // A point snapped between w1 (5,0) and b (10,0): 2 m from b's centre, inside its 2 m radius.
        let near = try venue.snap(VenuePoint(x: 8, y: 0.5, level: "L0"))
        #expect(near.offset == 0.5 && near.x == 8 && near.y == 0)
        let fromPoint = venue.nearestRegions(from: near, count: 2)
        #expect(fromPoint.map { venue.regions[$0.region].id } == ["b", "a"])
        #expect(fromPoint.map(\.distance) == [0, 7])
    }

    @Test func searchReusesScratchAcrossManyQueries() throws {
        let venue = try Topology.load(directory: VenueFixture.example("museum"))
        let search = WalkingDistanceSearch(topology: venue)
        var results: [RegionDistance] = []
        let first = search.nearestRegions(from: try venue.location(ofRegionID: "cafe"), count: 20)
        for _ in 0..<1000 { search.nearestRegions(from: try venue.location(ofRegionID: "library"), count: 20, into: &results) }
        #expect(search.nearestRegions(from: try venue.location(ofRegionID: "cafe"), count: 20) == first)
        #expect(results.count == 20)
    }

    @Test func targetedDistancesMatchTheRanking() throws {
        let venue = try Topology.load(directory: VenueFixture.example("mall"))
        let search = WalkingDistanceSearch(topology: venue)
        let from = try venue.snap(VenuePoint(x: 30, y: 21, level: "L2"))
        let ranking = search.nearestRegions(from: from, count: 300)
        let wanted = [ranking[0].region, ranking[150].region, ranking.last!.region, venue.regionIndex(id: "mall")!]
        let distances = search.distances(from: from, toRegions: wanted)
        #expect(distances[0] == ranking[0].distance)
        #expect(distances[1] == ranking[150].distance)
        #expect(distances[2] == ranking.last!.distance)
        #expect(distances[3] == nil)
    }
}
