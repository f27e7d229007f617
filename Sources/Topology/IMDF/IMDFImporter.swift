import Foundation

/// Converts an IMDF archive (OGC Community Standard 20-094) into a venue's files.
///
/// - levels by `ordinal` (ids `L0`, `L1`, `L-1`, …; names from `short_name`, else `name`);
/// - units → rooms (`areas.csv`; the outer ring of each polygon, in local metres);
/// - a waypoint per unit (its `display_point` when inside it, else a point inside the polygon) and
///   one per opening (the middle of its LineString), linked by `door` links from each unit to
///   each opening on its outline (within ``doorTolerance``); a unit without an opening that lies
///   inside another is joined to it by a `walk` link (no wall between them);
/// - relationships (`traversal`, `stairs`, `escalator`, `elevator`, `ramp`, `movingwalkway`)
///   → links from origin through the intermediaries to the destination; between levels a stairs,
///   escalator, ramp or lift link whose distance is the horizontal distance plus
///   ``storeyCost`` per level climbed (a lift: ``liftCost`` flat);
/// - WGS 84 → local metres around the venue's `display_point` (``GeoOrigin``), kept in
///   `venue.conf` as `origin-lat` / `origin-lon`.
///
/// Beacons and gateways are not part of IMDF: ``write(to:)`` keeps the survey files
/// (`regions.csv`, `gateways.csv`, `clients.csv`) found in the output directory, else writes
/// `regions.csv` and `gateways.csv` with their headers only.
public struct IMDFImporter: Sendable {
    /// How far (metres) an opening's middle may lie from a unit's outline to join it.
    public var doorTolerance = 0.75
    /// Walking cost per level climbed on stairs, escalators and ramps (metres).
    public var storeyCost = 10.0
    /// The walking cost of a lift ride, waiting included (metres).
    public var liftCost = 20.0

    public init() {}

    /// The converted venue: its files' text, and what the conversion left out or guessed.
    public struct Result: Sendable {
        public var name: String
        public var origin: GeoOrigin
        /// File name → text, for `venue.conf`, `levels.csv`, `areas.csv`, `waypoints.csv`, `links.csv`.
        public var files: [String: String]
        public var warnings: [String]
        public var levelCount: Int
        public var roomCount: Int
        public var doorCount: Int
        public var linkCount: Int
        /// The rooms, and which of them have a waypoint (its id is the room's id).
        public var areas: [Area]
        public var roomsWithWaypoint: Set<String>
    }

    struct Unit {
        var feature: IMDFFeature
        var areaID: String
        var level: String
        var polygon: Polygon
        var waypoint: PlanarPoint
        /// Whether it has a waypoint joined to something.
        var linked = false
        /// Whether an opening lies on its outline.
        var opened = false
    }

    /// Converts the archive; throws every problem found.
    public func convert(_ archive: IMDFArchive) throws(IMDFError) -> Result {
        var problems: [IMDFError.Problem] = []
        var warnings: [String] = []
        func features(_ file: String, required: Bool) -> [IMDFFeature] {
            guard let data = archive.files[file] else {
                if required { problems.append(.init(file: file, message: "missing from the archive")) }
                return []
            }
            return IMDFFeature.collection(data, file: file, problems: &problems)
        }
        var language = "en"
        if let data = archive.files["manifest.json"], let manifest = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] {
            if let value = manifest["language"] as? String { language = value }
        } else {
            warnings.append("manifest.json: missing or not a JSON object; assuming language 'en'")
        }

        // Venue: the origin.
        let venues = features("venue.geojson", required: true)
        guard let venue = venues.first else {
            problems.append(.init(file: "venue.geojson", message: "no venue feature"))
            throw IMDFError(problems)
        }
        guard let display = venue.point(venue.properties["display_point"]) else {
            problems.append(venue.problem("display_point", "missing or not a Point with [longitude, latitude]"))
            throw IMDFError(problems)
        }
        let origin = GeoOrigin(latitude: display.lat, longitude: display.lon)
        let name = sanitized(venue.label("name", language: language) ?? "imdf-venue")
        func project(_ position: (lon: Double, lat: Double)) -> PlanarPoint {
            origin.project(latitude: position.lat, longitude: position.lon)
        }

        // Levels by ordinal.
        var levelID: [String: String] = [:]
        var levelOrdinal: [String: Int] = [:]
        var levelRows: [(ordinal: Int, id: String, name: String)] = []
        var usedLevelIDs: Set<String> = []
        for level in features("level.geojson", required: true) {
            guard let ordinal = level.integer("ordinal", problems: &problems) else { continue }
            var id = "L\(ordinal)"
            var suffix = 2
            while usedLevelIDs.contains(id) {
                id = "L\(ordinal)-\(suffix)"
                suffix += 1
            }
            usedLevelIDs.insert(id)
            levelID[level.id] = id
            levelOrdinal[id] = ordinal
            let levelName = level.label("short_name", language: language) ?? level.label("name", language: language) ?? id
            levelRows.append((ordinal, id, sanitized(levelName)))
        }
        levelRows.sort { ($0.ordinal, $0.id) < ($1.ordinal, $1.id) }
        func level(of feature: IMDFFeature) -> String? {
            guard let reference = feature.reference("level_id", problems: &problems) else { return nil }
            guard let id = levelID[reference] else {
                problems.append(feature.problem("level_id", "unknown level '\(reference)' (not a feature of level.geojson)"))
                return nil
            }
            return id
        }

        // Units → rooms.
        var units: [Unit] = []
        var unitIndexByFeature: [String: Int] = [:]
        var holes = 0
        for feature in features("unit.geojson", required: true) {
            let level = level(of: feature)
            guard let rings = feature.polygons(problems: &problems), let level else { continue }
            if let geometry = feature.geometry, geometry["type"] as? String == "Polygon",
                let coordinates = geometry["coordinates"] as? [Any],
                coordinates.count > 1
            {
                holes += 1
            }
            let baseID = nodeID(feature.id)
            for (part, ring) in rings.enumerated() {
                let polygon = Polygon(ring.map(project))
                if let (a, b) = polygon.selfIntersection() {
                    problems.append(feature.problem("geometry", "the outline intersects itself (edges \(a + 1) and \(b + 1))"))
                    continue
                }
                var inside = polygon.interiorPoint
                if let point = feature.point(feature.properties["display_point"]) {
                    let projected = project(point)
                    if polygon.contains(x: projected.x, y: projected.y) { inside = projected }
                }
                if part == 0 { unitIndexByFeature[feature.id] = units.count }
                units.append(
                    Unit(
                        feature: feature, areaID: rings.count == 1 ? baseID : "\(baseID)-\(part + 1)", level: level, polygon: polygon,
                        waypoint: inside))
            }
        }
        if holes > 0 {
            warnings.append(
                "unit.geojson: \(holes) unit\(holes == 1 ? " has" : "s have") holes; only the outer outline is kept (rooms drawn inside it take their own area)"
            )
        }

        // Openings → door waypoints, linked to the units whose outline they lie on.
        var waypoints: [(id: String, point: PlanarPoint, level: String)] = []
        var links: [(from: String, to: String, distance: Double?, kind: String)] = []
        var doorIndexByFeature: [String: Int] = [:]
        for feature in features("opening.geojson", required: false) {
            let level = level(of: feature)
            guard let line = feature.line(problems: &problems), let level else { continue }
            let middle = Self.middle(of: line.map(project))
            let id = nodeID(feature.id)
            var joined = 0
            for index in units.indices where units[index].level == level {
                let polygon = units[index].polygon
                guard polygon.contains(x: middle.x, y: middle.y) || polygon.distanceToBoundary(x: middle.x, y: middle.y) <= doorTolerance
                else { continue }
                links.append((units[index].areaID, id, nil, "door"))
                units[index].linked = true
                units[index].opened = true
                joined += 1
            }
            guard joined > 0 else {
                warnings.append("opening.geojson: feature '\(feature.id)': on no unit's outline (within \(doorTolerance) m); left out")
                continue
            }
            doorIndexByFeature[feature.id] = waypoints.count
            waypoints.append((id, middle, level))
        }

        // Relationships → links, also between levels.
        var relationshipCount = 0
        for feature in features("relationship.geojson", required: false) {
            let category = feature.string("category") ?? ""
            let kind: String
            switch category {
            case "stairs", "traversal": kind = "stairs"
            case "escalator": kind = "escalator"
            case "elevator": kind = "lift"
            case "ramp": kind = "ramp"
            case "movingwalkway": kind = "walk"
            default: continue  // spatial adjacency, traversal.path: nothing to walk
            }
            var chain: [Any?] = [feature.properties["origin"]]
            chain += (feature.properties["intermediary"] as? [Any] ?? []).map { $0 }
            chain.append(feature.properties["destination"])
            var nodes: [(id: String, point: PlanarPoint, level: String)] = []
            var failed = false
            for (position, reference) in chain.enumerated() {
                let field = position == 0 ? "origin" : position == chain.count - 1 ? "destination" : "intermediary"
                guard let reference = reference as? [String: Any], let target = reference["id"] as? String else {
                    problems.append(feature.problem(field, "missing or not {\"id\", \"feature_type\"}"))
                    failed = true
                    break
                }
                if let unit = unitIndexByFeature[target] {
                    nodes.append((units[unit].areaID, units[unit].waypoint, units[unit].level))
                    units[unit].linked = true
                } else if let door = doorIndexByFeature[target] {
                    nodes.append(waypoints[door])
                } else {
                    problems.append(feature.problem(field, "refers to '\(target)', not a unit or opening of the archive"))
                    failed = true
                    break
                }
            }
            guard !failed else { continue }
            for (a, b) in zip(nodes, nodes.dropFirst()) where a.id != b.id {
                let dx = a.point.x - b.point.x
                let dy = a.point.y - b.point.y
                let horizontal = (dx * dx + dy * dy).squareRoot()
                if a.level == b.level {
                    links.append((a.id, b.id, nil, kind == "lift" ? "walk" : kind == "walk" ? "walk" : kind))
                } else {
                    let climbed = Double(abs((levelOrdinal[a.level] ?? 0) - (levelOrdinal[b.level] ?? 0)))
                    let cost = kind == "lift" ? horizontal + liftCost : horizontal + storeyCost * Swift.max(climbed, 1)
                    links.append((a.id, b.id, (cost * 100).rounded() / 100, kind == "walk" ? "ramp" : kind))
                }
            }
            relationshipCount += 1
        }

        // Units without an opening: open to the unit they lie in, else unreachable.
        for index in units.indices where !units[index].opened {
            let point = units[index].waypoint
            let containers = units.indices.filter { other in
                other != index && units[other].level == units[index].level && units[other].polygon.area > units[index].polygon.area
                    && units[other].polygon.contains(x: point.x, y: point.y)
            }
            if let container = containers.min(by: { units[$0].polygon.area < units[$1].polygon.area }) {
                links.append((units[index].areaID, units[container].areaID, nil, "walk"))
                units[index].linked = true
                units[container].linked = true
            } else if !units[index].linked {
                warnings.append(
                    "unit.geojson: feature '\(units[index].feature.id)': no opening and inside no other unit; its room is kept, with no waypoint"
                )
            }
        }
        guard problems.isEmpty else { throw IMDFError(problems) }

        // Files.
        let unitWaypoints = units.filter(\.linked).map { (id: $0.areaID, point: $0.waypoint, level: $0.level) }
        var files: [String: String] = [:]
        files[TopologyLoader.FileName.venue] =
            "# Imported from IMDF by `beaconfleet topology import-imdf`.\nname = \(name)\norigin-lat = \(display.lat)\norigin-lon = \(display.lon)\n"
        files[TopologyLoader.FileName.levels] =
            "# IMDF levels by ordinal; elevation is 4 m per ordinal (IMDF gives none).\nid,name,elevation\n"
            + levelRows.map { "\($0.id),\($0.name),\($0.ordinal * 4)\n" }.joined()
        files[TopologyLoader.FileName.areas] =
            "# IMDF units: outlines in metres east,north of origin-lat/origin-lon.\nid,level,name,kind,polygon\n"
            + units.map { unit in
                let label = sanitized(unit.feature.label("name", language: language) ?? "")
                let outline = unit.polygon.points.map { "\(Self.metres($0.x)) \(Self.metres($0.y))" }.joined(separator: ";")
                return "\(unit.areaID),\(unit.level),\(label),\(sanitized(unit.feature.string("category") ?? "")),\(outline)\n"
            }.joined()
        files[TopologyLoader.FileName.waypoints] =
            "# A waypoint per unit (display point) and per opening (middle of its line).\nid,x,y,level\n"
            + (unitWaypoints + waypoints).map { "\($0.id),\(Self.metres($0.point.x)),\(Self.metres($0.point.y)),\($0.level)\n" }.joined()
        files[TopologyLoader.FileName.links] =
            "# Units to their openings, relationships (stairs, escalators, lifts) between levels.\nfrom,to,distance,kind\n"
            + links.map { "\($0.from),\($0.to),\($0.distance.map { Self.metres($0) } ?? ""),\($0.kind)\n" }.joined()
        return Result(
            name: name, origin: origin, files: files, warnings: warnings, levelCount: levelRows.count, roomCount: units.count,
            doorCount: waypoints.count, linkCount: links.count,
            areas: units.map { unit in
                Area(
                    id: unit.areaID, level: unit.level, name: sanitized(unit.feature.label("name", language: language) ?? ""),
                    kind: unit.feature.string("category") ?? "", polygon: unit.polygon,
                    source: SourceLocation(file: unit.feature.file, line: 0))
            }, roomsWithWaypoint: Set(unitWaypoints.map(\.id)))
    }

    /// The point halfway along a polyline.
    static func middle(of line: [PlanarPoint]) -> PlanarPoint {
        var lengths: [Double] = []
        for (a, b) in zip(line, line.dropFirst()) { lengths.append(((b.x - a.x) * (b.x - a.x) + (b.y - a.y) * (b.y - a.y)).squareRoot()) }
        var remaining = lengths.reduce(0, +) / 2
        for (index, length) in lengths.enumerated() {
            if remaining <= length, length > 0 {
                let t = remaining / length
                let (a, b) = (line[index], line[index + 1])
                return PlanarPoint(x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y))
            }
            remaining -= length
        }
        return line[0]
    }

    /// Millimetres, the precision of the written files.
    static func metres(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return TopologyExporter.number(rounded == 0 ? 0 : rounded)
    }

    /// A feature id as a topology id: `[A-Za-z0-9._-]`, at most 64.
    func nodeID(_ id: String) -> String {
        let mapped = String(id.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") ? $0 : "_" })
        return String(mapped.prefix(64))
    }

    /// Text for a CSV field or a conf value: no commas, `#` or line breaks.
    func sanitized(_ text: String) -> String {
        trimmedField(String(text.map { $0 == "," || $0 == "#" || $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }
}
