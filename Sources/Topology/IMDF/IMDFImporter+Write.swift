public import Foundation

extension IMDFImporter.Result {
    /// The survey files an import keeps when the output directory has them.
    public static let surveyFiles = [TopologyLoader.FileName.regions, TopologyLoader.FileName.gateways, TopologyLoader.FileName.clients]

    /// Writes the venue into `directory` (created when missing). The survey files already there
    /// are kept (their names are returned); missing `regions.csv` / `gateways.csv` are written with
    /// their headers only.
    @discardableResult
    public func write(to directory: URL) throws -> [String] {
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        var kept: [String] = []
        for file in Self.surveyFiles where manager.fileExists(atPath: directory.appendingPathComponent(file).path) { kept.append(file) }
        var files = self.files
        if !kept.contains(TopologyLoader.FileName.regions) {
            files[TopologyLoader.FileName.regions] =
                "# Beacons are not part of IMDF: survey them and list them here (see topology/README.md).\nid,uuid,major,minor,x,y,level,radius,tags,power\n"
        }
        if !kept.contains(TopologyLoader.FileName.gateways) {
            files[TopologyLoader.FileName.gateways] = "# Gateways are not part of IMDF: list the scanners here.\nid,x,y,level,z\n"
        }
        // Surveyed beacons: each joins its room's waypoint (walls count: only within the room).
        if kept.contains(TopologyLoader.FileName.regions),
            let bytes = try? [UInt8](Data(contentsOf: directory.appendingPathComponent(TopologyLoader.FileName.regions)))
        {
            files[TopologyLoader.FileName.links, default: ""] += regionLinks(CSVTable(path: TopologyLoader.FileName.regions, bytes: bytes))
        }
        // venue.conf: keep the keys the import does not set (uuid, budget, radio…).
        let venueURL = directory.appendingPathComponent(TopologyLoader.FileName.venue)
        if let existing = try? String(contentsOf: venueURL, encoding: .utf8) {
            let ours: Set<String> = ["name", "origin-lat", "origin-lon"]
            let others = existing.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                let key = trimmedField(line.split(separator: "=", maxSplits: 1).first ?? "")
                return !ours.contains(key) && !line.hasPrefix("# Imported from IMDF")
            }
            let tail = others.joined(separator: "\n").trimmingCharacters(in: .newlines)
            if !tail.isEmpty { files[TopologyLoader.FileName.venue, default: ""] += tail + "\n" }
        }
        for (name, text) in files.sorted(by: { $0.key < $1.key }) {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        return kept
    }

    /// A `walk` link from each placed region of `regions.csv` to the waypoint of the room holding it.
    func regionLinks(_ table: CSVTable) -> String {
        let rooms = RoomIndex(areas: areas)
        var columns: [String: Int] = [:]
        var text = ""
        table.forEachRecord(
            header: { header in
                for index in 0..<header.fieldCount { columns[header.string(index).lowercased()] = index }
            },
            record: { row in
                let id = row.string(columns["id"] ?? -1)
                guard !id.isEmpty, case .success(let x)? = row.number(columns["x"] ?? -1),
                    case .success(let y)? = row.number(columns["y"] ?? -1)
                else { return }
                let level = row.string(columns["level"] ?? -1)
                guard let room = rooms.room(x: x, y: y, level: level), roomsWithWaypoint.contains(areas[room].id) else { return }
                text += "\(id),\(areas[room].id),,walk\n"
            })
        return text.isEmpty ? "" : "# Surveyed beacons (regions.csv), each to its room's waypoint.\n" + text
    }
}
