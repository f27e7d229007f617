import Foundation
import Testing

@testable import Topology

/// `topology import-imdf`: a small IMDF archive written here (two levels, units, openings, a
/// stairs and an elevator relationship) converts into a valid venue; bad input is named by file,
/// feature id and field; rooms survive a round trip through WGS 84 GeoJSON.
@Suite struct IMDFImportTests {
    static let origin = GeoOrigin(latitude: 51.5, longitude: -0.1)

    /// A feature's [lon, lat] ring for a rectangle in local metres.
    static func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [[Double]] {
        [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)].map { point in
            let (lat, lon) = origin.unproject(PlanarPoint(x: point.0, y: point.1))
            return [lon, lat]
        }
    }

    static func line(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [[Double]] {
        [(x0, y0), (x1, y1)].map { point in
            let (lat, lon) = origin.unproject(PlanarPoint(x: point.0, y: point.1))
            return [lon, lat]
        }
    }

    static func collection(_ features: [[String: Any]]) -> Data {
        try! JSONSerialization.data(withJSONObject: ["type": "FeatureCollection", "features": features])
    }

    static func unit(_ id: String, level: String, name: String, category: String = "room", ring: [[Double]]) -> [String: Any] {
        [
            "id": id, "type": "Feature", "feature_type": "unit", "geometry": ["type": "Polygon", "coordinates": [ring]],
            "properties": ["category": category, "name": ["en": name], "level_id": level, "display_point": NSNull()],
        ]
    }

    static func opening(_ id: String, level: String, line: [[Double]]) -> [String: Any] {
        [
            "id": id, "type": "Feature", "feature_type": "opening", "geometry": ["type": "LineString", "coordinates": line],
            "properties": ["category": "pedestrian", "level_id": level],
        ]
    }

    static func relationship(_ id: String, category: String, from: String, to: String) -> [String: Any] {
        [
            "id": id, "type": "Feature", "feature_type": "relationship", "geometry": NSNull(),
            "properties": [
                "category": category, "direction": "undirected", "origin": ["id": from, "feature_type": "unit"],
                "intermediary": NSNull(), "destination": ["id": to, "feature_type": "unit"],
            ],
        ]
    }

    /// Level 0: rooms A and B with a door between them, stairs and a lift off B through doors.
    /// Level 1: a hall holding the stairs and the lift (no walls between them: no openings).
    static func archive(units extra: [[String: Any]] = [], levels: [[String: Any]]? = nil) -> [String: Data] {
        let (lat, lon) = (origin.latitude, origin.longitude)
        let venue: [String: Any] = [
            "id": "venue", "type": "Feature", "feature_type": "venue",
            "geometry": ["type": "Polygon", "coordinates": [rectangle(0, 0, 24, 10)]],
            "properties": [
                "category": "museum", "name": ["en": "Test, Hall #1"], "display_point": ["type": "Point", "coordinates": [lon, lat]],
            ],
        ]
        let levelFeatures =
            levels ?? [
                [
                    "id": "lvl-0", "type": "Feature", "feature_type": "level",
                    "geometry": ["type": "Polygon", "coordinates": [rectangle(0, 0, 24, 10)]],
                    "properties": ["ordinal": 0, "name": ["en": "Ground"], "short_name": ["en": "G"], "category": "unspecified"],
                ],
                [
                    "id": "lvl-1", "type": "Feature", "feature_type": "level",
                    "geometry": ["type": "Polygon", "coordinates": [rectangle(0, 0, 24, 10)]],
                    "properties": ["ordinal": 1, "name": ["en": "First"], "category": "unspecified"],
                ],
            ]
        let units: [[String: Any]] =
            [
                unit("room-a", level: "lvl-0", name: "Room A", ring: rectangle(0, 0, 10, 10)),
                unit("room-b", level: "lvl-0", name: "Room B", ring: rectangle(10, 0, 20, 10)),
                unit("stairs-0", level: "lvl-0", name: "Stairs", category: "stairs", ring: rectangle(20, 0, 24, 4)),
                unit("lift-0", level: "lvl-0", name: "Lift", category: "elevator", ring: rectangle(20, 6, 24, 10)),
                unit("hall-1", level: "lvl-1", name: "Hall", category: "walkway", ring: rectangle(0, 0, 24, 10)),
                unit("stairs-1", level: "lvl-1", name: "Stairs", category: "stairs", ring: rectangle(20, 0, 24, 4)),
                unit("lift-1", level: "lvl-1", name: "Lift", category: "elevator", ring: rectangle(20, 6, 24, 10)),
            ] + extra
        let openings = [
            opening("door-ab", level: "lvl-0", line: line(10, 4, 10, 6)),
            opening("door-stairs", level: "lvl-0", line: line(20, 1, 20, 3)),
            opening("door-lift", level: "lvl-0", line: line(20, 7, 20, 9)),
        ]
        let relationships = [
            relationship("rel-stairs", category: "stairs", from: "stairs-0", to: "stairs-1"),
            relationship("rel-lift", category: "elevator", from: "lift-0", to: "lift-1"),
        ]
        return [
            "manifest.json": try! JSONSerialization.data(withJSONObject: ["version": "1.0.0", "language": "en"]),
            "venue.geojson": collection([venue]), "level.geojson": collection(levelFeatures), "unit.geojson": collection(units),
            "opening.geojson": collection(openings), "relationship.geojson": collection(relationships),
        ]
    }

    func importAndLoad(_ files: [String: Data]) throws -> (IMDFImporter.Result, Topology) {
        let result = try IMDFImporter().convert(IMDFArchive(files: files))
        let directory = try VenueFixture.directory([:])
        try result.write(to: directory)
        let loaded = TopologyLoader().load(directory: directory)
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        return (result, try #require(loaded.topology))
    }

    @Test("every feature type converts: levels by ordinal, units as rooms, doors, stairs and a lift between levels")
    func converts() throws {
        let (result, topology) = try importAndLoad(Self.archive())
        #expect(result.name == "Test  Hall  1", "commas and # cannot stand in venue.conf or CSV")
        #expect(topology.levels.map(\.id) == ["L0", "L1"])
        #expect(topology.levels.map(\.name) == ["G", "First"])
        #expect(topology.areas.count == 7)
        #expect(topology.origin == Self.origin)
        #expect(topology.roomName(at: VenuePoint(x: 15, y: 5, level: "L0")) == "Room B")
        #expect(topology.roomName(at: VenuePoint(x: 22, y: 2, level: "L1")) == "Stairs", "the inner room wins")
        // The door between A and B is halfway along its line.
        let door = try #require(topology.waypoints.first { $0.id == "door-ab" })
        #expect(abs(door.position.x - 10) < 1e-6 && abs(door.position.y - 5) < 1e-6)
        let kinds = Dictionary(grouping: topology.links, by: \.kind).mapValues(\.count)
        #expect(kinds[.door] == 6, "A–door-ab–B, B–door-stairs–stairs, B–door-lift–lift: \(kinds)")
        #expect(kinds[.stairs] == 1)
        #expect(kinds[.lift] == 1)
        #expect(kinds[.walk] == 2, "the upper stairs and lift open onto the hall")
        // Stacked stairs: no horizontal distance, 10 m per storey; the lift 20 m flat.
        #expect(topology.links.first { $0.kind == .stairs }?.distance == 10)
        #expect(topology.links.first { $0.kind == .lift }?.distance == 20)
        #expect(topology.nodeCount == 7 + 3, "a waypoint per unit and per opening")
    }

    @Test("a .zip archive reads like its directory")
    func zipArchive() throws {
        let files = Self.archive()
        let zip = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString).zip")
        try StoredZip.data(files).write(to: zip)
        let fromZip = try IMDFImporter().convert(IMDFArchive(contentsOf: zip))
        let fromFiles = try IMDFImporter().convert(IMDFArchive(files: files))
        #expect(fromZip.files == fromFiles.files)
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString).zip")
        try Data("not a zip".utf8).write(to: garbage)
        #expect(throws: IMDFError.self) { try IMDFArchive(contentsOf: garbage) }
    }

    func problems(_ files: [String: Data]) -> [String] {
        do {
            _ = try IMDFImporter().convert(IMDFArchive(files: files))
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test("bad input names the file, the feature id and the field, and never traps")
    func badInput() {
        var files = Self.archive(
            units: [
                [
                    "id": "pointy", "type": "Feature", "feature_type": "unit", "geometry": ["type": "Point", "coordinates": [0, 0]],
                    "properties": ["category": "room", "level_id": "lvl-0"],
                ],
                Self.unit("lost", level: "nowhere", name: "Lost", ring: Self.rectangle(0, 0, 1, 1)),
                [
                    "id": "bare", "type": "Feature", "feature_type": "unit",
                    "geometry": ["type": "Polygon", "coordinates": [Self.rectangle(0, 0, 1, 1)]],
                    "properties": ["category": "room"],
                ],
                ["id": "junk", "geometry": ["type": "Polygon", "coordinates": [[["a", "b"]]]], "properties": ["level_id": "lvl-0"]],
            ],
            levels: [
                ["id": "lvl-0", "type": "Feature", "properties": ["ordinal": 0]],
                ["id": "lvl-1", "type": "Feature", "properties": ["name": ["en": "no ordinal"]]],
            ])
        let found = problems(files)
        #expect(found.contains("unit.geojson: feature 'pointy': geometry: expected a Polygon or MultiPolygon, got Point"), "\(found)")
        #expect(
            found.contains("unit.geojson: feature 'lost': level_id: unknown level 'nowhere' (not a feature of level.geojson)"), "\(found)")
        #expect(found.contains("unit.geojson: feature 'bare': level_id: missing"), "\(found)")
        #expect(found.contains { $0.hasPrefix("unit.geojson: feature 'junk': geometry: ") }, "\(found)")
        #expect(found.contains("level.geojson: feature 'lvl-1': ordinal: missing"), "\(found)")
        files["opening.geojson"] = Data("{\"features\": 3}".utf8)
        files["relationship.geojson"] = Data("[not json".utf8)
        let more = problems(files)
        #expect(more.contains("opening.geojson: features: expected a GeoJSON FeatureCollection with a 'features' array"), "\(more)")
        #expect(more.contains { $0.hasPrefix("relationship.geojson: not JSON") }, "\(more)")
        files["venue.geojson"] = Self.collection([["id": "v", "properties": [:] as [String: Any]]])
        #expect(problems(files) == ["venue.geojson: feature 'v': display_point: missing or not a Point with [longitude, latitude]"])
    }

    /// The largest distance between a room's vertices and those read back from its GeoJSON.
    static func roundTripError(_ topology: Topology) throws -> Double {
        let text = try GeoJSONExporter().rooms(topology)
        var problems: [IMDFError.Problem] = []
        let features = IMDFFeature.collection(Data(text.utf8), file: "rooms.geojson", problems: &problems)
        #expect(problems.isEmpty)
        #expect(features.count == topology.areas.count)
        var worst = 0.0
        for (area, feature) in zip(topology.areas, features) {
            #expect(feature.id == area.id)
            let ring = try #require(feature.polygons(problems: &problems)?.first)
            let back = Polygon(ring.map { topology.origin!.project(latitude: $0.lat, longitude: $0.lon) })
            #expect(back.points.count == area.polygon.points.count)
            for (a, b) in zip(area.polygon.points, back.points) {
                worst = max(worst, ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot())
            }
        }
        return worst
    }

    @Test("rooms → WGS 84 GeoJSON → rooms within 10 cm (the test archive and the committed Westport House)")
    func roundTrip() throws {
        let (_, topology) = try importAndLoad(Self.archive())
        let error = try Self.roundTripError(topology)
        #expect(error < 0.1)
        let westport = try Topology.load(directory: VenueFixture.example("westport"))
        let westportError = try Self.roundTripError(westport)
        print("room round trip: test archive max \(error) m, westport (\(westport.areas.count) rooms) max \(westportError) m")
        #expect(westportError < 0.1)
        // And against the source archive: the committed areas.csv is the IMDF's units to the millimetre.
        let source = try IMDFImporter().convert(
            IMDFArchive(contentsOf: VenueFixture.example("westport").appendingPathComponent("westport-house-imdf.zip")))
        #expect(source.areas.count == westport.areas.count)
        var worst = 0.0
        for (a, b) in zip(source.areas, westport.areas) {
            #expect(a.id == b.id)
            for (p, q) in zip(a.polygon.points, b.polygon.points) {
                worst = max(worst, ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).squareRoot())
            }
        }
        #expect(worst < 0.001)
    }

    @Test("the projection is exact both ways and scaled like WGS 84 at the origin's latitude")
    func projection() {
        let point = PlanarPoint(x: 123.456, y: -78.9)
        let (lat, lon) = Self.origin.unproject(point)
        let back = Self.origin.project(latitude: lat, longitude: lon)
        #expect(abs(back.x - point.x) < 1e-9 && abs(back.y - point.y) < 1e-9)
        // Degree-length tables for WGS 84 at 51.5° N: 111 255 m per degree of latitude, 69 440 m per
        // degree of longitude (a sphere would give 111 195 m: 6 cm off over 100 m).
        let north = Self.origin.project(latitude: 51.5 + 1.0 / 3600, longitude: -0.1)
        let east = Self.origin.project(latitude: 51.5, longitude: -0.1 + 1.0 / 3600)
        #expect(abs(north.y - 111_255.0 / 3600) < 0.002, "\(north.y)")
        #expect(abs(east.x - 69_440.0 / 3600) < 0.002, "\(east.x)")
    }
}

/// A ZIP archive of stored (uncompressed) files, enough for `unzip` to read.
enum StoredZip {
    static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func data(_ files: [String: Data]) -> Data {
        var out = Data()
        var central = Data()
        func le16(_ value: Int, _ data: inout Data) { data.append(contentsOf: [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)]) }
        func le32(_ value: UInt32, _ data: inout Data) {
            for shift in stride(from: 0, to: 32, by: 8) { data.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
        }
        for (name, body) in files.sorted(by: { $0.key < $1.key }) {
            let offset = UInt32(out.count)
            let crc = crc32(body)
            let nameBytes = Data(name.utf8)
            le32(0x0403_4B50, &out); le16(20, &out); le16(0, &out); le16(0, &out); le16(0, &out); le16(0x21, &out)
            le32(crc, &out); le32(UInt32(body.count), &out); le32(UInt32(body.count), &out); le16(nameBytes.count, &out); le16(0, &out)
            out += nameBytes + body
            le32(0x0201_4B50, &central); le16(20, &central); le16(20, &central); le16(0, &central); le16(0, &central); le16(0, &central)
            le16(0x21, &central); le32(crc, &central); le32(UInt32(body.count), &central); le32(UInt32(body.count), &central)
            le16(nameBytes.count, &central); le16(0, &central); le16(0, &central); le16(0, &central); le16(0, &central); le32(0, &central)
            le32(offset, &central)
            central += nameBytes
        }
        let centralOffset = UInt32(out.count)
        out += central
        le32(0x0605_4B50, &out); le16(0, &out); le16(0, &out); le16(files.count, &out); le16(files.count, &out)
        le32(UInt32(central.count), &out); le32(centralOffset, &out); le16(0, &out)
        return out
    }
}
