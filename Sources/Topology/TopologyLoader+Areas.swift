/// `areas.csv`: the venue's rooms (``Area``), polygons per level in local metres.
extension LoadContext {
    mutating func parseAreas(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.areas
        let filePath = path(file)
        parseCSV(bytes, file: file, required: ["id", "level", "polygon"], optional: ["name", "kind"]) { context, row, columns in
            guard let id = context.id(row, columns["id"], file: file, field: "id") else { return }
            let level = row.string(columns["level"] ?? -1)
            if level.isEmpty {
                context.error(file, row.line, "level: missing")
                return
            }
            guard context.levelExists(level, file: file, line: row.line) else { return }
            let text = row.string(columns["polygon"] ?? -1)
            var points: [PlanarPoint] = []
            for (index, pair) in text.split(separator: ";", omittingEmptySubsequences: true).enumerated() {
                let parts = pair.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]), x.isFinite, y.isFinite else {
                    context.error(file, row.line, "polygon: point \(index + 1) '\(trimmedField(pair))' is not 'X Y' (metres)")
                    return
                }
                points.append(PlanarPoint(x: x, y: y))
            }
            let polygon = Polygon(points)
            guard polygon.points.count >= 3 else {
                context.error(
                    file, row.line,
                    "polygon: \(polygon.points.count) point\(polygon.points.count == 1 ? "" : "s"); a room needs at least 3 ('X Y;X Y;X Y')"
                )
                return
            }
            if let (a, b) = polygon.selfIntersection() {
                context.error(file, row.line, "polygon: edges \(a + 1) and \(b + 1) cross (the outline intersects itself)")
                return
            }
            if polygon.area == 0 {
                context.error(file, row.line, "polygon: encloses no area")
                return
            }
            context.areas.append(
                Area(
                    id: id, level: level, name: row.string(columns["name"] ?? -1), kind: row.string(columns["kind"] ?? -1),
                    polygon: polygon,
                    source: SourceLocation(file: filePath, line: row.line)))
        }
    }

    /// Where the venue's local metres sit on the Earth, when `venue.conf` says.
    var origin: GeoOrigin? {
        guard let originLatitude, let originLongitude else { return nil }
        return GeoOrigin(latitude: originLatitude, longitude: originLongitude)
    }

    /// Keeps the first of each area id and warns about region beacons and gateways outside every
    /// room of their level when the venue has rooms.
    mutating func finishAreas() {
        if (originLatitude == nil) != (originLongitude == nil) {
            error(TopologyLoader.FileName.venue, 0, "origin-lat and origin-lon go together: give both or neither")
        }
        (areas, _) = keepingFirstOfEachID(areas, kind: "room")
        guard !areas.isEmpty else { return }
        let rooms = RoomIndex(areas: areas)
        for region in regions {
            guard let position = region.position, rooms.room(at: position) == nil else { continue }
            diagnostics.append(
                TopologyDiagnostic(
                    .warning, region.source,
                    "region '\(region.id)' at \(position) is outside every room of \(TopologyLoader.FileName.areas)"))
        }
        for gateway in gateways where rooms.room(at: gateway.position) == nil {
            diagnostics.append(
                TopologyDiagnostic(
                    .warning, gateway.source,
                    "gateway '\(gateway.id)' at \(gateway.position) is outside every room of \(TopologyLoader.FileName.areas)"))
        }
    }
}
