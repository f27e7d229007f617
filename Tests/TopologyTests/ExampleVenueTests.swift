import BeaconKit
import Foundation
import TestSupport
import Testing

@testable import Topology

/// The example venues in `topology/` are valid and are what their README says.
@Suite struct ExampleVenueTests {
    @Test func museumIsOneLevelOfAboutFortyRegions() throws {
        let result = TopologyLoader().load(directory: VenueFixture.example("museum"))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let museum = try #require(result.topology)
        #expect(museum.levels.count == 1)
        #expect((35...50).contains(museum.regions.count))
        #expect(museum.pinnedRegions.map { museum.regions[$0].id } == ["museum"])
        #expect(museum.regions[museum.pinnedRegions[0]].identity.major == nil)
    }

    @Test func mallHasTwoLevelsStairsLiftsAndPinnedWildcards() throws {
        let result = TopologyLoader().load(directory: VenueFixture.example("mall"))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let mall = try #require(result.topology)
        #expect(mall.levels.map(\.id) == ["L1", "L2"])
        #expect((280...320).contains(mall.regions.count))
        let kinds = Set(mall.links.map(\.kind))
        #expect(kinds.isSuperset(of: [.stairs, .lift]))
        let pinned = mall.pinnedRegions.map { mall.regions[$0] }
        #expect(pinned.count == 3)
        #expect(pinned.allSatisfy { $0.identity.isWildcard && $0.position == nil })
        #expect(pinned.filter { $0.identity.major != nil }.compactMap(\.level).sorted() == ["L1", "L2"])
        // Every placed region's beacon is claimed by the per-level wildcard of its own level.
        for region in mall.regions where region.position != nil {
            let wildcard = mall.regions[
                mall.regionIndex(identity: RegionIdentity(uuid: region.identity.uuid, major: region.identity.major))!]
            #expect(wildcard.level == region.position!.level)
        }
    }

    @Test func tetamIsAGridEveryTwoMetresWithTheTwelveSensors() throws {
        let result = TopologyLoader().load(directory: VenueFixture.example("tetam"))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let tetam = try #require(result.topology)
        #expect(tetam.gateways.count == 12)
        #expect(tetam.regions.count == 90)
        let xs = Set(tetam.regions.compactMap { $0.position?.x })
        let ys = Set(tetam.regions.compactMap { $0.position?.y })
        #expect(xs.sorted() == stride(from: 1.0, through: 19, by: 2).map { $0 })
        #expect(ys.sorted() == stride(from: 1.0, through: 17, by: 2).map { $0 })
        // In the open room, walking distance between grid neighbours is the straight line.
        let from = try tetam.location(ofRegionID: "g-4-4")
        let near = tetam.nearestRegions(from: from, count: 9)
        #expect(near.filter { $0.distance == 1 }.count == 4)  // 2 m to a side neighbour minus 1 m radius
    }

    @Test(.requiresSharedData)
    func tetamGatewaysAreTheDatasetSensors() throws {
        let tetam = try Topology.load(directory: VenueFixture.example("tetam"))
        let text = try String(contentsOf: SharedData.url("datasets/tetam-tracks/cnf/tetam.dev"), encoding: .utf8)
        let dongles = try #require(text.split(separator: "\n").first { $0.hasPrefix("Dongles:") })
        let object = try JSONSerialization.jsonObject(with: Data(dongles.dropFirst("Dongles:".count).utf8)) as! [String: [Any]]
        #expect(object.count == 12)
        for (_, value) in object {
            let position = value[0] as! [Double]
            let alias = value[2] as! String
            let gateway = try #require(tetam.gateway(id: alias), "no gateway \(alias)")
            #expect(gateway.position.x == position[0] && gateway.position.y == position[1] && gateway.height == position[2])
        }
    }
}
