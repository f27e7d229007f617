import Foundation
import Testing

@testable import Topology

/// The validator names the file and line of every error, and reports all of them.
@Suite struct TopologyLoaderTests {
    func load(_ files: [String: String], budget: Int? = nil) throws -> TopologyLoader.Result {
        try VenueFixture.load(files, budget: budget)
    }

    /// The single error of a result, as `file-name:line: message`.
    func errors(_ result: TopologyLoader.Result) -> [String] {
        result.errors.map { "\(URL(fileURLWithPath: $0.location.file).lastPathComponent):\($0.location.line): \($0.message)" }
    }

    @Test func smallVenueLoads() throws {
        let result = try load(VenueFixture.small)
        #expect(result.errors.isEmpty, "\(result.diagnostics)")
        let topology = try #require(result.topology)
        #expect(topology.name == "small")
        #expect(topology.regions.count == 6)
        #expect(topology.pinnedRegions.map { topology.regions[$0].id } == ["everywhere"])
        #expect(topology.links.count == 6)
        #expect(topology.links[0].distance == 5 && topology.links[0].isDerived)
        #expect(topology.links[4].distance == 7 && !topology.links[4].isDerived && topology.links[4].kind == .stairs)
        #expect(topology.gateway(id: "g1")?.height == 2.5)
        #expect(topology.budget == 4)
    }

    @Test func unknownNodeInLinkNamesTheLine() throws {
        let result = try load(
            VenueFixture.small(replacing: "links.csv", with: "from,to\na,w1\nw1,nowhere\nw1,b\nb,w2\nw2,c\nc,e,7,stairs\ne,d\n"))
        #expect(errors(result).contains { $0.hasPrefix("links.csv:3: to: unknown node 'nowhere'") }, "\(errors(result))")
        #expect(result.topology == nil)
    }

    @Test func duplicateIdAndIdentityAreErrors() throws {
        // Line 5 repeats a's id; line 6 gives c b's identity.
        let regions = VenueFixture.small["regions.csv"]!.replacingOccurrences(
            of: "c,,1,3,20,0,L0,1,\n", with: "a,,1,9,20,0,L0,1,\nc,,1,2,20,0,L0,1,\n")
        let result = try load(VenueFixture.small(replacing: "regions.csv", with: regions))
        let messages = errors(result)
        #expect(messages.contains { $0.hasPrefix("regions.csv:5: duplicate region id 'a' (first at line 3)") }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("regions.csv:6: duplicate identity") && $0.contains("'b'") }, "\(messages)")
    }

    @Test func duplicateWaypointAndGatewayIdsAreErrors() throws {
        var files = VenueFixture.small
        files["waypoints.csv"] = "id,x,y,level\nw1,5,0,L0\nw2,15,0,L0\nw1,6,0,L0\nb,7,0,L0\n"
        files["gateways.csv"] = "id,x,y,level,z\ng1,10,1,L0,2.5\ng1,11,1,L0,2.5\n"
        let messages = errors(try load(files))
        #expect(messages.contains("waypoints.csv:4: duplicate waypoint id 'w1' (first at line 2)"), "\(messages)")
        #expect(messages.contains { $0.hasPrefix("waypoints.csv:5: duplicate id 'b': already a region (") }, "\(messages)")
        #expect(messages.contains("gateways.csv:3: duplicate gateway id 'g1' (first at line 2)"), "\(messages)")
        #expect(messages.count == 3, "\(messages)")
    }

    @Test func negativeAndMissingDistancesAreErrors() throws {
        let links = "from,to,distance,kind\na,w1,-3,\nw1,b,,\nb,w2,,\nw2,c,,\nc,e,,stairs\ne,d,,\n"
        let messages = errors(try load(VenueFixture.small(replacing: "links.csv", with: links)))
        #expect(messages.contains("links.csv:2: distance: -3.0 is negative"), "\(messages)")
        #expect(messages.contains { $0.hasPrefix("links.csv:6: distance: missing; a stairs link between levels") }, "\(messages)")
    }

    @Test func walkLinkBetweenLevelsIsAnError() throws {
        let links = "from,to,distance,kind\na,w1,,\nw1,b,,\nb,w2,,\nw2,c,,\nc,e,7,\ne,d,,\n"
        let messages = errors(try load(VenueFixture.small(replacing: "links.csv", with: links)))
        #expect(messages.contains { $0.hasPrefix("links.csv:6: 'c' and 'e' are on different levels") }, "\(messages)")
    }

    @Test func unknownLevelIsAnError() throws {
        let waypoints = "id,x,y,level\nw1,5,0,L0\nw2,15,0,L7\n"
        let messages = errors(try load(VenueFixture.small(replacing: "waypoints.csv", with: waypoints)))
        #expect(messages.contains { $0.hasPrefix("waypoints.csv:3: level 'L7' does not exist") }, "\(messages)")
    }

    @Test func unreachablePartIsReportedAtItsFirstNode() throws {
        // Without the stairs, level L1 (d, e) is cut off.
        let links = "from,to\na,w1\nw1,b\nb,w2\nw2,c\ne,d\n"
        let messages = errors(try load(VenueFixture.small(replacing: "links.csv", with: links)))
        #expect(
            messages.contains { $0.hasPrefix("regions.csv:6: region 'd' is in a part of 2 nodes with no link to the rest") }, "\(messages)")
        #expect(messages.count == 1, "\(messages)")
    }

    @Test func pinnedRegionsBeyondTheBudgetAreAnError() throws {
        let regions = """
            id,uuid,major,minor,x,y,level,radius,tags
            everywhere,,,,,,,,pinned
            a,,1,1,0,0,L0,1,pinned
            b,,1,2,10,0,L0,2,
            c,,1,3,20,0,L0,1,
            d,,2,1,0,0,L1,1,
            e,,2,2,20,0,L1,1,
            """
        let files = VenueFixture.small(replacing: "regions.csv", with: regions)
        #expect(try load(files).errors.isEmpty)
        let messages = errors(try load(files, budget: 1))
        #expect(messages.contains { $0.hasPrefix("regions.csv:3: 2 pinned regions exceed the budget of 1") }, "\(messages)")
    }

    @Test func malformedFieldsNameTheField() throws {
        let regions = """
            id,uuid,major,minor,x,y,level,radius,tags
            everywhere,,,,,,,,pinned
            a,,1,1,zero,0,L0,1,
            b,,1,70000,10,0,L0,2,
            c,,,3,20,0,L0,1,
            d,not-a-uuid,2,1,0,0,L1,1,
            e,,2,2,20,0,L1,-1,
            bad id,,2,3,20,0,L1,1,
            lost,,2,4,,,,1,
            """
        let messages = errors(try load(VenueFixture.small(replacing: "regions.csv", with: regions)))
        for expected in [
            "regions.csv:3: x: 'zero' is not a number",
            "regions.csv:4: minor: '70000' is not a whole number from 0 to 65535",
            "regions.csv:5: minor without major",
            "regions.csv:6: uuid: 'not-a-uuid' is not a UUID",
            "regions.csv:7: radius: -1.0 is negative",
            "regions.csv:8: id: 'bad id' is not a valid id",
            "regions.csv:9: region 'lost' has no position, so it must be tagged 'pinned'",
        ] {
            #expect(messages.contains { $0.hasPrefix(expected) }, "missing \(expected) in \(messages)")
        }
    }

    @Test func missingFilesAndColumnsAreErrors() throws {
        var files = VenueFixture.small
        files["links.csv"] = nil
        #expect(errors(try load(files)).contains { $0.hasPrefix("links.csv:0: missing file") })
        let messages = errors(try load(VenueFixture.small(replacing: "gateways.csv", with: "# scanners\nid,x,level\ng1,1,L0\n")))
        #expect(messages.contains { $0.hasPrefix("gateways.csv:2: header lacks column 'y'") }, "\(messages)")
    }

    @Test func commentsBlankLinesCarriageReturnsAndColumnOrder() throws {
        let links =
            "# walkable links\r\nto,kind,from,distance\r\n\r\nw1,,a,   # first\r\nb,,w1,\r\nw2,,b,\r\nc,,w2,\r\ne,stairs,c,7\r\nd,,e,\r\n"
        let result = try load(VenueFixture.small(replacing: "links.csv", with: links))
        #expect(result.errors.isEmpty, "\(result.diagnostics)")
        #expect(result.topology?.links.map(\.from) == ["a", "w1", "b", "w2", "c", "e"])
    }

    @Test func odditiesAreWarnings() throws {
        var files = VenueFixture.small
        files["links.csv"] =
            "from,to,distance,kind,colour\na,w1,4,,red\nw1,b,,,\nb,w2,,,\nw2,c,,,\nc,e,7,stairs,\nc,e,9,stairs,\ne,d,,,\nd,d,,,\n"
        let result = try load(files)
        #expect(result.errors.isEmpty, "\(result.diagnostics)")
        let warnings = result.warnings.map {
            "\(URL(fileURLWithPath: $0.location.file).lastPathComponent):\($0.location.line): \($0.message)"
        }
        #expect(warnings.contains { $0.hasPrefix("links.csv:1: unknown column 'colour'") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("links.csv:2: distance 4.0 m is shorter than the straight line") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("links.csv:7: 'c' and 'e' are already linked at line 6") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("links.csv:9: link from 'd' to itself ignored") }, "\(warnings)")
    }

    @Test func loadThrowsEveryError() throws {
        let links = "from,to\na,x1\nw1,x2\n"
        let directory = try VenueFixture.directory(VenueFixture.small(replacing: "links.csv", with: links))
        #expect(throws: TopologyError.self) { try Topology.load(directory: directory) }
        do {
            _ = try Topology.load(directory: directory)
        } catch {
            #expect(error.errors.count >= 2)
            #expect(error.description.contains("links.csv:2:"))
            #expect(error.description.contains("links.csv:3:"))
        }
    }
}
