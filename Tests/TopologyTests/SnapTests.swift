import Foundation
import Testing

@testable import Topology

/// Snapping puts a position on the nearest walkable link of its own level.
@Suite struct SnapTests {
    @Test func snapsOntoTheNearestLinkOfTheSameLevelOnly() throws {
        let venue = try Topology.load(directory: try VenueFixture.directory(VenueFixture.small))
        let onL1 = try venue.snap(VenuePoint(x: 10, y: 3, level: "L1"))
        #expect(onL1.level == "L1" && onL1.x == 10 && onL1.y == 0 && onL1.offset == 3)
        // Beyond the end of the corridor: the end node.
        let past = try venue.snap(VenuePoint(x: 30, y: 0, level: "L0"))
        #expect(past.x == 20 && past.offset == 10)
        #expect(throws: TopologyQueryError.unknownLevel("L9")) { try venue.snap(VenuePoint(x: 0, y: 0, level: "L9")) }
    }

    @Test func snapAgreesWithBruteForceOnAGeneratedVenue() throws {
        let directory = try VenueFixture.directory([:])
        try VenueGenerator(regions: 2000, levels: 2, seed: 5).write(to: directory)
        let venue = try Topology.load(directory: directory)
        var random = SplitMix64(seed: 9)
        var points: [String: VenuePoint] = [:]
        for waypoint in venue.waypoints { points[waypoint.id] = waypoint.position }
        for region in venue.regions { points[region.id] = region.position }
        let segments = venue.links.map { (points[$0.from]!, points[$0.to]!) }
        for _ in 0..<200 {
            let x = Double(random.int(in: -2000...20000)) / 100
            let y = Double(random.int(in: -2000...20000)) / 100
            let level = random.int(in: 0...1) == 0 ? "L0" : "L1"
            let hit = try venue.snap(VenuePoint(x: x, y: y, level: level))
            // Brute force over every same-level link.
            var best = Double.infinity
            for (a, b) in segments {
                guard a.level == level, b.level == level else { continue }
                let dx = b.x - a.x
                let dy = b.y - a.y
                let l2 = dx * dx + dy * dy
                let t = l2 > 0 ? min(1, max(0, ((x - a.x) * dx + (y - a.y) * dy) / l2)) : 0
                let px = a.x + t * dx
                let py = a.y + t * dy
                best = min(best, ((x - px) * (x - px) + (y - py) * (y - py)).squareRoot())
            }
            #expect(abs(hit.offset - best) < 1e-9, "\(x),\(y),\(level): \(hit.offset) vs \(best)")
        }
    }

    @Test func parsesPositions() throws {
        #expect(try VenuePoint(parsing: " 1.5, -2 ,L0") == VenuePoint(x: 1.5, y: -2, level: "L0"))
        #expect(throws: TopologyQueryError.self) { try VenuePoint(parsing: "1,2") }
        #expect(throws: TopologyQueryError.self) { try VenuePoint(parsing: "a,2,L0") }
        #expect(throws: TopologyQueryError.self) { try VenuePoint(parsing: "inf,2,L0") }
    }
}
