import Foundation
import Testing

@testable import Topology

/// Generated venues are valid, sized as asked, and the same for the same seed.
@Suite struct VenueGeneratorTests {
    @Test(arguments: [(1, 1), (37, 2), (1000, 1), (5000, 4)])
    func generatedVenueIsValidAndExactlySized(regions: Int, levels: Int) throws {
        let directory = try VenueFixture.directory([:])
        try VenueGenerator(regions: regions, levels: levels, seed: 3).write(to: directory)
        let result = TopologyLoader().load(directory: directory)
        #expect(result.errors.isEmpty, "\(result.errors.prefix(5))")
        let venue = try #require(result.topology)
        #expect(venue.regions.filter { $0.position != nil }.count == regions)
        #expect(venue.levels.count == levels)
        #expect(venue.pinnedRegions.count == 1)
        if levels > 1 {
            #expect(venue.links.contains { $0.kind == .stairs })
            #expect(venue.links.contains { $0.kind == .lift })
        }
        #expect(!venue.gateways.isEmpty || regions < 10)
    }

    @Test func sameSeedSameVenueOtherSeedOtherVenue() {
        let a = VenueGenerator(regions: 500, levels: 2, seed: 42).files()
        let b = VenueGenerator(regions: 500, levels: 2, seed: 42).files()
        let c = VenueGenerator(regions: 500, levels: 2, seed: 43).files()
        #expect(a == b)
        #expect(a["regions.csv"] != c["regions.csv"])
    }
}
