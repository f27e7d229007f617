import BeaconKit
import Foundation
import Testing

@testable import Topology

/// Each region's detection range (where iOS reports it inside and wakes a suspended phone) comes
/// from its `power` column or the venue's radio settings, and `topology check` warns where the
/// ranges fail a suspended phone.
@Suite struct DetectionRangeTests {
    func load(_ files: [String: String]) throws -> TopologyLoader.Result { try VenueFixture.load(files) }

    func messages(_ result: TopologyLoader.Result) -> [String] { VenueFixture.messages(result) }

    static let regionsWithPower = """
        id,uuid,major,minor,x,y,level,radius,tags,power
        everywhere,,,,,,,,pinned,
        a,,1,1,0,0,L0,1,,-59
        b,,1,2,10,0,L0,2,,-80
        c,,1,3,20,0,L0,1,,
        d,,2,1,0,0,L1,1,,
        e,,2,2,20,0,L1,1,,-70

        """

    @Test func rangesFollowPowerThroughTheLogDistanceModel() throws {
        let topology = try #require(try load(VenueFixture.small(replacing: "regions.csv", with: Self.regionsWithPower)).topology)
        let range = { (id: String) in topology.detectionRanges[topology.regionIndex(id: id)!] }
        // −95 dBm sensitivity, exponent 2.5: 10^((P + 95) / 25) metres.
        #expect(abs(range("a") - 27.54) < 0.01)
        #expect(abs(range("b") - 3.98) < 0.01)
        #expect(abs(range("c") - 10) < 1e-9)
        #expect(range("c") == range("e"))
        #expect(topology.regions[topology.regionIndex(id: "a")!].measuredPower == -59)
        #expect(topology.regions[topology.regionIndex(id: "c")!].measuredPower == nil)
    }

    @Test func venueSettingsChangeTheDefault() throws {
        var files = VenueFixture.small
        files["venue.conf"]! += "power = -65\nsensitivity = -90\npath-loss-exponent = 2\nshadowing = 4\n"
        let topology = try #require(try load(files).topology)
        #expect(abs(topology.detectionRanges[topology.regionIndex(id: "a")!] - 17.78) < 0.01)  // 10^(25/20)
        #expect(abs(topology.reachRanges[topology.regionIndex(id: "a")!] - 35.48) < 0.01)  // 10^((25 + 1.5 × 4)/20)
        #expect(topology.radio == RadioEnvironment(measuredPower: -65, sensitivity: -90, pathLossExponent: 2, shadowing: 4))
        files["venue.conf"]! += "shadowing = -1\n"
        #expect(messages(try load(files)).contains("venue.conf:8: shadowing: '-1' is not a standard deviation in dB from 0 to 20"))
    }

    @Test func badPowerNamesFileLineAndField() throws {
        let regions = Self.regionsWithPower.replacingOccurrences(of: "L0,2,,-80", with: "L0,2,,loud")
        let result = try load(VenueFixture.small(replacing: "regions.csv", with: regions))
        #expect(
            messages(result).contains("regions.csv:4: power: 'loud' is not a measured power at 1 m in dBm from -127 to 20"),
            "\(messages(result))")
        #expect(result.topology == nil)
        var files = VenueFixture.small
        files["venue.conf"]! += "power = 30\n"
        #expect(messages(try load(files)).contains("venue.conf:4: power: '30' is not a measured power at 1 m in dBm from -127 to 20"))
    }

    @Test func aRegionDetectedOnlyWithinItsRadiusIsFlagged() throws {
        let regions = Self.regionsWithPower.replacingOccurrences(of: "L0,2,,-80", with: "L0,5,,-80")
        let result = try load(VenueFixture.small(replacing: "regions.csv", with: regions))
        #expect(result.topology != nil)
        #expect(
            messages(result).contains {
                $0.hasPrefix(
                    "regions.csv:4: region 'b' is detected only within 4.0 m of its beacon (power -80 dBm at 1 m), no farther than its radius of 5.0 m"
                )
            },
            "\(messages(result))")
        #expect(!messages(try load(VenueFixture.small)).contains { $0.contains("detected only") })
    }

    @Test func moreRegionsInRangeThanSlotsIsFlagged() throws {
        // Budget 4 with one pinned: 3 slots. Five beacons 1 m apart on L0, all within 10 m.
        var rows = "id,uuid,major,minor,x,y,level,radius,tags\neverywhere,,,,,,,,pinned\n"
        for i in 0..<5 { rows += "r\(i),,1,\(i + 1),\(i),0,L0,0.5,\n" }
        rows += "d,,2,1,0,0,L1,1,\ne,,2,2,20,0,L1,1,\n"
        let links = "from,to,distance,kind\nr0,r1,,\nr1,r2,,\nr2,r3,,\nr3,r4,,\nr4,e,7,stairs\ne,d,,\n"
        var files = VenueFixture.small(replacing: "regions.csv", with: rows)
        files["links.csv"] = links
        files["waypoints.csv"] = "id,x,y,level\n"
        let result = try load(files)
        #expect(result.topology != nil, "\(messages(result))")
        #expect(
            messages(result).contains { $0.contains("on level 'L0', 5 regions are detectable at once, more than the 3 slots") },
            "\(messages(result))")
        #expect(!messages(result).contains { $0.contains("on level 'L1'") })
    }
}
