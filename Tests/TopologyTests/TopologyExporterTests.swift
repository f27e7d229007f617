import BeaconKit
import Foundation
import Testing

@testable import Topology

/// The canonical JSON carries everything the planner uses, in a stable form.
@Suite struct TopologyExporterTests {
    @Test func exportCarriesRegionsGatewaysAndResolvedLinks() throws {
        let venue = try Topology.load(directory: try VenueFixture.directory(VenueFixture.small))
        let json = TopologyExporter().json(venue)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["name"] as? String == "small")
        #expect(object["revision"] as? String == venue.revision)
        let regions = try #require(object["regions"] as? [[String: Any]])
        #expect(regions.count == 6)
        #expect(regions[0]["id"] as? String == "everywhere" && regions[0]["x"] is NSNull && regions[0]["tags"] as? [String] == ["pinned"])
        #expect(regions[2]["uuid"] as? String == "11111111-2222-3333-4444-555555555555")
        #expect(regions[2]["major"] as? Int == 1 && regions[2]["minor"] as? Int == 2 && regions[2]["radius"] as? Double == 2)
        let links = try #require(object["links"] as? [[String: Any]])
        #expect(links.map { $0["distance"] as? Double } == [5, 5, 5, 5, 7, 20])
        #expect(links[4]["kind"] as? String == "stairs" && links[4]["derived"] as? Bool == false)
        #expect((object["gateways"] as? [[String: Any]])?.first?["z"] as? Double == 2.5)
        // Stable: the same venue exports the same text.
        #expect(TopologyExporter().json(try Topology.load(directory: try VenueFixture.directory(VenueFixture.small))) == json)
    }

    @Test func revisionChangesWithTheFiles() throws {
        let a = try Topology.load(directory: try VenueFixture.directory(VenueFixture.small))
        let b = try Topology.load(
            directory: try VenueFixture.directory(VenueFixture.small(replacing: "gateways.csv", with: "id,x,y,level\ng1,10,2,L0\n")))
        #expect(a.revision != b.revision)
    }

    @Test func lookupsByIdAndBeaconIdentity() throws {
        let mall = try Topology.load(directory: VenueFixture.example("mall"))
        let shop = try #require(mall.region(id: "L2-shop-n10-front"))
        let identity = shop.identity
        #expect(
            mall.regionIndex(beacon: BeaconIdentity(uuid: identity.uuid, major: identity.major!, minor: identity.minor!))
                == mall.regionIndex(id: shop.id))
        // An unknown minor falls back to the level's wildcard, an unknown major to the venue's.
        #expect(
            mall.regionIndex(beacon: BeaconIdentity(uuid: identity.uuid, major: 2, minor: 60000)).map { mall.regions[$0].id } == "mall-L2")
        #expect(mall.regionIndex(beacon: BeaconIdentity(uuid: identity.uuid, major: 9, minor: 1)).map { mall.regions[$0].id } == "mall")
        #expect(mall.regionIndex(beacon: BeaconIdentity(uuid: BeaconUUID(high: 1, low: 2), major: 1, minor: 1)) == nil)
    }
}
