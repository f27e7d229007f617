import Foundation
import Testing

@testable import Topology

/// Rooms (`areas.csv`): loaded with file/line errors, and walls respected by inside-ness,
/// snapping and walking distance.
@Suite struct RoomTests {
    /// Two rooms side by side, a wall at x = 10 with a door at (10, 9); a beacon 0.3 m east of the
    /// wall in room B, another in room A.
    static let twoRooms: [String: String] = [
        "venue.conf": "name = rooms\nuuid = 11111111-2222-3333-4444-555555555555\n",
        "levels.csv": "id\nL0\n",
        "regions.csv": "id,major,minor,x,y,level,radius\nbeside-wall,1,1,10.3,5,L0,1.5\nwest,1,2,3,5,L0,1.5\n",
        "waypoints.csv": "id,x,y,level\nroom-a,5,5,L0\nroom-b,15,5,L0\ndoor,10,9,L0\n",
        "links.csv": "from,to\nroom-a,door\ndoor,room-b\nroom-b,beside-wall\nroom-a,west\n",
        "areas.csv": "id,level,name,kind,polygon\nA,L0,Room A,room,0 0;10 0;10 10;0 10\nB,L0,Room B,room,10 0;20 0;20 10;10 10\n",
    ]

    func load(_ files: [String: String]) throws -> TopologyLoader.Result { try VenueFixture.load(files) }

    func messages(_ result: TopologyLoader.Result) -> [String] { VenueFixture.messages(result) }

    @Test("a point's room is the polygon holding it; regions know their room; the export lists the rooms")
    func roomsLoad() throws {
        let topology = try VenueFixture.loaded(Self.twoRooms)
        #expect(topology.areas.map(\.id) == ["A", "B"])
        #expect(topology.roomName(at: VenuePoint(x: 9.8, y: 5, level: "L0")) == "Room A")
        #expect(topology.roomName(at: VenuePoint(x: 10.3, y: 5, level: "L0")) == "Room B")
        #expect(topology.roomName(at: VenuePoint(x: 30, y: 5, level: "L0")) == nil)
        #expect(topology.regionRooms == [1, 0])
        let json = TopologyExporter().json(topology)
        #expect(
            json.contains(
                "\"areas\": [\n{\"id\": \"A\", \"level\": \"L0\", \"name\": \"Room A\", \"kind\": \"room\", \"polygon\": [[0, 0], [10, 0], [10, 10], [0, 10]]}"
            ))
    }

    @Test("a point 0.5 m from a beacon but behind a wall is not inside its region; without the rooms it is")
    func insideThroughAWall() throws {
        let topology = try #require(try load(Self.twoRooms).topology)
        let point = VenuePoint(x: 9.8, y: 5, level: "L0")
        let region = try #require(topology.regionIndex(id: "beside-wall"))
        #expect(!topology.sharesRoom(point, region: region))
        let here = try topology.snap(point)
        let distance = try #require(topology.nearestRegions(from: here, count: 2).first { $0.region == region }).distance
        #expect(distance > 5, "walks round through the door at (10, 9): \(distance)")

        var withoutRooms = Self.twoRooms
        withoutRooms["areas.csv"] = nil
        let open = try #require(try load(withoutRooms).topology)
        let openHere = try open.snap(point)
        let openDistance = try #require(open.nearestRegions(from: openHere, count: 2).first { $0.region == region }).distance
        #expect(openDistance == 0, "no walls: snapped onto the beacon's link, inside")
        #expect(open.sharesRoom(point, region: region))
    }

    @Test("walking distance goes round the wall through the door")
    func walkingRoundAWall() throws {
        let topology = try #require(try load(Self.twoRooms).topology)
        let west = try topology.location(ofRegionID: "west")
        let target = try #require(topology.regionIndex(id: "beside-wall"))
        let distance = try #require(topology.nearestRegions(from: west, count: 2).first { $0.region == target }).distance
        // west → room-a (2) → door (√(25+16)) → room-b (√(25+16)) → beside-wall (4.7) − radius 1.5.
        let expected = 2 + 2 * (41.0).squareRoot() + 4.7 - 1.5
        #expect(abs(distance - expected) < 1e-9, "\(distance) vs \(expected); the straight line is 7.3 − 1.5")
    }

    @Test("a link between levels is a connector on each level, with where it lands and its length")
    func connectorsByLevel() throws {
        let topology = try VenueFixture.loaded([
            "venue.conf": "name = stairs\nuuid = 11111111-2222-3333-4444-555555555555\n",
            "levels.csv": "id\nL0\nL1\nL2\n",
            "regions.csv": "id,major,minor,x,y,level,radius\nfoot,1,1,0,0,L0,1\nlanding,1,2,3,4,L1,1\ntop,1,3,6,8,L2,1\n",
            "links.csv": "from,to,distance,kind\nlanding,top,9,stairs\nfoot,landing,7,stairs\n",
        ])
        let graph = topology.roomGraph
        let up = try #require(graph.connectors(on: 0).first)
        #expect(graph.connectors(on: 0).count == 1)
        #expect((up.toLevel, up.x, up.y, up.toX, up.toY, up.length) == (1, 0, 0, 3, 4, 7))
        #expect(Set(graph.connectors(on: 1).map(\.toLevel)) == [0, 2])
        #expect(graph.connectors(on: 2).map(\.length) == [9])
        #expect(graph.connectors(on: 3).isEmpty && graph.connectors(on: -1).isEmpty)
    }

    @Test("areas.csv errors name the file, the line and the field")
    func areaErrors() throws {
        var files = Self.twoRooms
        files["areas.csv"] = """
            id,level,name,kind,polygon
            A,L0,Room A,room,0 0;10 0;10 10;0 10
            A,L0,again,room,0 0;1 0;1 1
            bow,L0,,room,0 0;10 10;10 0;0 10
            two,L0,,room,0 0;1 1
            up,L9,,room,0 0;1 0;1 1
            bad,L0,,room,0 0;x 1;1 1

            """
        let found = messages(try load(files))
        #expect(found.contains("areas.csv:3: duplicate room id 'A' (first at line 2)"), "\(found)")
        #expect(found.contains("areas.csv:4: polygon: edges 1 and 3 cross (the outline intersects itself)"), "\(found)")
        #expect(found.contains("areas.csv:5: polygon: 2 points; a room needs at least 3 ('X Y;X Y;X Y')"), "\(found)")
        #expect(found.contains { $0.hasPrefix("areas.csv:6: level 'L9' does not exist") }, "\(found)")
        #expect(found.contains("areas.csv:7: polygon: point 2 'x 1' is not 'X Y' (metres)"), "\(found)")
    }

    @Test("check warns about a beacon and a gateway outside every room")
    func outsideEveryRoom() throws {
        var files = Self.twoRooms
        files["regions.csv"]! += "outside,1,3,25,5,L0,1\n"
        files["links.csv"]! += "room-b,outside\n"
        files["gateways.csv"] = "id,x,y,level\ng-in,5,5,L0\ng-out,-3,5,L0\n"
        let found = messages(try load(files))
        #expect(found.contains("regions.csv:4: region 'outside' at 25.0,5.0,L0 is outside every room of areas.csv"), "\(found)")
        #expect(found.contains("gateways.csv:3: gateway 'g-out' at -3.0,5.0,L0 is outside every room of areas.csv"), "\(found)")
        #expect(!found.contains { $0.contains("'g-in'") })
    }
}
