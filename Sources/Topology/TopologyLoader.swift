import BeaconKit
public import Foundation

/// Reads a venue directory (`venue.conf`, `levels.csv`, `regions.csv`, `waypoints.csv`,
/// `gateways.csv`, `links.csv`, `clients.csv`; see `topology/README.md`) and validates it.
///
/// Every problem found is reported, not only the first, each with its file and line.
public struct TopologyLoader: Sendable {
    /// The budget to check the pinned regions against; nil uses `venue.conf`'s, else 20.
    public var budget: Int?

    public init(budget: Int? = nil) {
        self.budget = budget
    }

    /// The outcome of loading: the topology when there was no error, and every diagnostic.
    public struct Result: Sendable {
        public var topology: Topology?
        public var diagnostics: [TopologyDiagnostic]
        public var errors: [TopologyDiagnostic] { diagnostics.filter { $0.severity == .error } }
        public var warnings: [TopologyDiagnostic] { diagnostics.filter { $0.severity == .warning } }
    }

    /// The names of a venue's files.
    public enum FileName {
        public static let venue = "venue.conf"
        public static let levels = "levels.csv"
        public static let regions = "regions.csv"
        public static let waypoints = "waypoints.csv"
        public static let gateways = "gateways.csv"
        public static let links = "links.csv"
        public static let clients = "clients.csv"
        public static let areas = "areas.csv"
    }

    /// Loads and validates the venue in `directory`, collecting every error and warning.
    public func load(directory: URL) -> Result {
        var context = LoadContext(directoryPath: directory.path, directoryName: directory.lastPathComponent)
        context.readAll(directory: directory)
        context.budgetOverride = budget
        return context.finish()
    }
}

extension Topology {
    /// Loads and validates a venue directory; throws every error found when it is invalid.
    public static func load(directory: URL, budget: Int? = nil) throws(TopologyError) -> Topology {
        let result = TopologyLoader(budget: budget).load(directory: directory)
        guard let topology = result.topology else { throw TopologyError(diagnostics: result.errors + result.warnings) }
        return topology
    }
}

/// Ids used in topics, files and iOS identifiers: `[A-Za-z0-9._-]{1,64}`.
func isValidID(_ id: String) -> Bool {
    guard !id.isEmpty, id.utf8.count <= 64 else { return false }
    return id.utf8.allSatisfy { byte in
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2E || byte == 0x5F || byte == 0x2D
    }
}

/// The state of one load: what was read so far and the diagnostics.
struct LoadContext {
    let directoryPath: String
    let directoryName: String
    var diagnostics: [TopologyDiagnostic] = []
    var budgetOverride: Int?

    var name: String?
    var venueUUID: BeaconUUID?
    var venueBudget: Int?
    var radio = RadioEnvironment()
    var positionTuning = PositionTuning()
    var presenceTuning = PresenceTuning()
    var budgetLocation: SourceLocation?
    var levels: [Level] = []
    var regions: [Region] = []
    var waypoints: [Waypoint] = []
    var gateways: [Gateway] = []
    var rawLinks: [RawLink] = []
    /// `clients.csv`'s rules; nil when the venue has no such file.
    var clientRules: [ClientPolicy.Rule]?
    /// `areas.csv`'s rooms (empty without the file).
    var areas: [Area] = []
    /// `venue.conf`'s `origin-lat` / `origin-lon`, as read (both are needed).
    var originLatitude: Double?
    var originLongitude: Double?
    var digest = FNV1a()

    struct RawLink {
        var from: String
        var to: String
        var distance: Double?
        var kind: LinkKind
        var source: SourceLocation
    }

    init(directoryPath: String, directoryName: String) {
        self.directoryPath = directoryPath
        self.directoryName = directoryName
    }

    func path(_ file: String) -> String {
        directoryPath.hasSuffix("/") ? directoryPath + file : directoryPath + "/" + file
    }

    mutating func error(_ file: String, _ line: Int, _ message: String) {
        diagnostics.append(TopologyDiagnostic(.error, SourceLocation(file: path(file), line: line), message))
    }

    mutating func warning(_ file: String, _ line: Int, _ message: String) {
        diagnostics.append(TopologyDiagnostic(.warning, SourceLocation(file: path(file), line: line), message))
    }

    /// The file's bytes, nil when absent (an error when `required`).
    mutating func read(_ file: String, directory: URL, required: Bool) -> [UInt8]? {
        let url = directory.appendingPathComponent(file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            if required { error(file, 0, "missing file: every venue needs \(file)") }
            return nil
        }
        do {
            let bytes = [UInt8](try Data(contentsOf: url))
            digest.add(file.utf8)
            digest.add(bytes)
            return bytes
        } catch {
            self.error(file, 0, "cannot read: \(error.localizedDescription)")
            return nil
        }
    }

    mutating func readAll(directory: URL) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            diagnostics.append(
                TopologyDiagnostic(
                    .error, SourceLocation(file: directoryPath, line: 0), "not a venue directory (it does not exist or is not a directory)")
            )
            return
        }
        typealias F = TopologyLoader.FileName
        if let bytes = read(F.venue, directory: directory, required: false) { parseVenue(bytes) }
        if let bytes = read(F.levels, directory: directory, required: true) { parseLevels(bytes) }
        if let bytes = read(F.regions, directory: directory, required: true) { parseRegions(bytes) }
        if let bytes = read(F.waypoints, directory: directory, required: false) { parseWaypoints(bytes) }
        if let bytes = read(F.gateways, directory: directory, required: false) { parseGateways(bytes) }
        if let bytes = read(F.links, directory: directory, required: true) { parseLinks(bytes) }
        if let bytes = read(F.areas, directory: directory, required: false) { parseAreas(bytes) }
        if let bytes = read(F.clients, directory: directory, required: false) {
            parseClients(bytes)
        } else {
            warning(
                F.clients, 0,
                "missing: every identity the gateways hear that is not a region beacon becomes a client (the venue's own Eddystone frames and neighbours' beacons too); write the identities to admit"
            )
        }
    }

    // MARK: venue.conf

    mutating func parseVenue(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.venue
        let text = String(decoding: bytes, as: UTF8.self)
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = offset + 1
            let content = trimmedField(rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            guard !content.isEmpty else { continue }
            guard let equals = content.firstIndex(of: "=") else {
                error(file, line, "expected 'key = value', got '\(content)'")
                continue
            }
            let key = trimmedField(content[..<equals])
            let value = trimmedField(content[content.index(after: equals)...])
            /// `value` as a number in `range`; `nil`, after the error `KEY: 'VALUE' is not WHAT`, when it is none.
            func number<Number: LosslessStringConvertible & Comparable>(in range: ClosedRange<Number>, _ what: String) -> Number? {
                if let number = Number(value), range.contains(number) { return number }
                error(file, line, "\(key): '\(value)' is not \(what)")
                return nil
            }
            switch key {
            case "name": name = value
            case "uuid":
                if let uuid = BeaconUUID(value) { venueUUID = uuid } else { error(file, line, "uuid: '\(value)' is not a UUID") }
            case "budget":
                if let budget = Int(value), budget > 0 {
                    venueBudget = budget
                    budgetLocation = SourceLocation(file: path(file), line: line)
                } else {
                    error(file, line, "budget: '\(value)' is not a positive whole number")
                }
            case "power":
                if let power = number(in: -127...20, "a measured power at 1 m in dBm from -127 to 20") { radio.measuredPower = Int8(power) }
            case "sensitivity":
                if let dBm = number(in: -127.0...0, "a dBm value from -127 to 0") { radio.sensitivity = dBm }
            case "path-loss-exponent":
                if let n = number(in: 1.0...6, "a number from 1 to 6") { radio.pathLossExponent = n }
            case "shadowing":
                if let dB = number(in: 0.0...20, "a standard deviation in dB from 0 to 20") { radio.shadowing = dB }
            case "walking-speed":
                if let speed = number(in: PositionTuning.walkingSpeedRange, "a speed in m/s from 0.1 to 10") {
                    positionTuning.walkingSpeed = speed
                }
            case "velocity-gain":
                if let gain = number(in: PositionTuning.velocityGainRange, "a number from 0 to 1") { positionTuning.velocityGain = gain }
            case "anchors-per-estimate":
                if let count = number(in: PositionTuning.anchorsPerEstimateRange, "a whole number from 1 to 64") {
                    positionTuning.anchorsPerEstimate = count
                }
            case "room-dwell":
                if let seconds = number(in: PresenceTuning.roomDwellRange, "a number of seconds from 0 to 120") {
                    presenceTuning.roomDwell = seconds
                }
            case "room-margin":
                if let metres = number(in: PresenceTuning.roomMarginRange, "a distance in metres from 0 to 10") {
                    presenceTuning.roomMargin = metres
                }
            case "level-dwell":
                if let seconds = number(in: PresenceTuning.levelDwellRange, "a number of seconds from 0 to 300") {
                    presenceTuning.levelDwell = seconds
                }
            case "level-reach":
                if let metres = number(in: PresenceTuning.levelReachRange, "a distance in metres from 0 to 100") {
                    presenceTuning.levelReach = metres
                }
            case "presence-offset-gain":
                if let gain = number(in: PresenceTuning.offsetGainRange, "a number from 0 to 1") { presenceTuning.offsetGain = gain }
            case "origin-lat":
                if let degrees = number(in: -90.0...90, "a latitude in degrees from -90 to 90") { originLatitude = degrees }
            case "origin-lon":
                if let degrees = number(in: -180.0...180, "a longitude in degrees from -180 to 180") { originLongitude = degrees }
            case "description": break
            default:
                warning(
                    file, line,
                    "unknown key '\(key)' ignored (known: name, uuid, budget, power, sensitivity, path-loss-exponent, shadowing, walking-speed, velocity-gain, anchors-per-estimate, room-dwell, room-margin, level-dwell, level-reach, presence-offset-gain, origin-lat, origin-lon, description)"
                )
            }
        }
    }

    // MARK: CSV files

    /// Maps the header's column names to indices; reports missing required and unknown columns.
    mutating func columns(_ header: CSVRecord, file: String, required: [String], optional: [String]) -> [String: Int]? {
        var map: [String: Int] = [:]
        for index in 0..<header.fieldCount {
            let name = header.string(index).lowercased()
            if name.isEmpty { continue }
            if map[name] != nil {
                error(file, header.line, "column '\(name)' appears twice")
                continue
            }
            if !required.contains(name) && !optional.contains(name) {
                warning(file, header.line, "unknown column '\(name)' ignored (known: \((required + optional).joined(separator: ", ")))")
            }
            map[name] = index
        }
        let missing = required.filter { map[$0] == nil }
        if !missing.isEmpty {
            error(
                file, header.line,
                "header lacks column\(missing.count == 1 ? "" : "s") \(missing.map { "'\($0)'" }.joined(separator: ", ")) (the first line that is not a comment is the header)"
            )
            return nil
        }
        return map
    }

    /// Walks a CSV file: header then records, with the column map.
    mutating func parseCSV(
        _ bytes: [UInt8], file: String, required: [String], optional: [String],
        record: (inout LoadContext, CSVRecord, [String: Int]) -> Void
    ) {
        let table = CSVTable(path: path(file), bytes: bytes)
        var map: [String: Int]? = nil
        var sawHeader = false
        var context = self
        table.forEachRecord(
            header: { header in
                sawHeader = true
                map = context.columns(header, file: file, required: required, optional: optional)
            },
            record: { row in
                guard let map else { return }
                if row.fieldCount > (map.values.max() ?? 0) + 1, row.fieldCount > map.count {
                    var extra = false
                    for index in (map.values.max()! + 1)..<row.fieldCount where !row.isEmpty(index) { extra = true }
                    if extra { context.warning(file, row.line, "more fields than the header names; the extra ones are ignored") }
                }
                record(&context, row, map)
            })
        if !sawHeader {
            context.error(file, 0, "empty file: expected a header line naming the columns (\(required.joined(separator: ",")))")
        }
        self = context
    }

    /// A required id field: present and well formed.
    mutating func id(_ row: CSVRecord, _ column: Int?, file: String, field: String) -> String? {
        let value = row.string(column ?? -1)
        guard !value.isEmpty else {
            error(file, row.line, "\(field): missing")
            return nil
        }
        guard isValidID(value) else {
            error(file, row.line, "\(field): '\(value)' is not a valid id (letters, digits, '.', '_', '-'; at most 64)")
            return nil
        }
        return value
    }

    /// An optional number field; reports a malformed one (and returns nil, with `failed` set).
    mutating func number(_ row: CSVRecord, _ column: Int?, file: String, field: String, failed: inout Bool) -> Double? {
        switch row.number(column ?? -1) {
        case nil: return nil
        case .success(let value): return value
        case .failure(let problem):
            error(file, row.line, "\(field): '\(problem.text)' is not a number")
            failed = true
            return nil
        }
    }

    /// The position of `what` (a waypoint, a gateway), which needs x, y and an existing level; nil
    /// when one is missing or the row has `failed` already (a missing one is reported and sets it).
    mutating func position(
        x: Double?, y: Double?, level: String, of what: String, file: String, line: Int, failed: inout Bool
    ) -> VenuePoint? {
        if !failed, x == nil || y == nil || level.isEmpty {
            error(file, line, "\(what) needs x, y and level")
            failed = true
        }
        if !level.isEmpty, !levelExists(level, file: file, line: line) { failed = true }
        guard !failed, let x, let y else { return nil }
        return VenuePoint(x: x, y: y, level: level)
    }

    mutating func levelExists(_ id: String, file: String, line: Int) -> Bool {
        if levelIDs.contains(id) { return true }
        let known = levels.prefix(8).map(\.id).joined(separator: ", ")
        error(file, line, "level '\(id)' does not exist (\(TopologyLoader.FileName.levels) defines \(known.isEmpty ? "none" : known))")
        return false
    }

    var levelIDs: Set<String> = []

    mutating func parseLevels(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.levels
        let filePath = path(file)  // one shared string for every record's location
        var firstLine: [String: Int] = [:]
        parseCSV(bytes, file: file, required: ["id"], optional: ["name", "elevation"]) { context, row, columns in
            guard let id = context.id(row, columns["id"], file: file, field: "id") else { return }
            var failed = false
            let elevation = context.number(row, columns["elevation"], file: file, field: "elevation", failed: &failed) ?? 0
            if let first = firstLine[id] {
                context.error(file, row.line, "duplicate level id '\(id)' (first at line \(first))")
                return
            }
            firstLine[id] = row.line
            context.levelIDs.insert(id)
            context.levels.append(
                Level(
                    id: id, name: row.string(columns["name"] ?? -1), elevation: elevation,
                    source: SourceLocation(file: filePath, line: row.line)))
        }
        if levels.isEmpty, !diagnostics.contains(where: { $0.severity == .error && $0.location.file == path(file) }) {
            error(file, 0, "no level defined: a venue needs at least one")
        }
    }

    mutating func parseRegions(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.regions
        let filePath = path(file)  // one shared string for every record's location
        var lastUUIDText = ""
        var lastUUID: BeaconUUID? = nil
        parseCSV(
            bytes, file: file, required: ["id", "x", "y", "level", "radius"], optional: ["uuid", "major", "minor", "power", "tags", "name"]
        ) { context, row, columns in
            guard let id = context.id(row, columns["id"], file: file, field: "id") else { return }
            var failed = false
            // Identity.
            var uuid = context.venueUUID
            let uuidText = row.string(columns["uuid"] ?? -1)
            if !uuidText.isEmpty {
                // Most rows repeat the previous row's UUID: parse each distinct text once.
                if uuidText == lastUUIDText {
                    uuid = lastUUID
                } else {
                    uuid = BeaconUUID(uuidText)
                    lastUUIDText = uuidText
                    lastUUID = uuid
                }
                if uuid == nil {
                    context.error(file, row.line, "uuid: '\(uuidText)' is not a UUID")
                    failed = true
                }
            } else if uuid == nil {
                context.error(file, row.line, "uuid: missing (and venue.conf sets no default uuid)")
                failed = true
            }
            var major: UInt16? = nil
            var minor: UInt16? = nil
            for (field, column) in [("major", columns["major"]), ("minor", columns["minor"])] {
                switch row.integer(column ?? -1, limit: 65535) {
                case nil: break
                case .success(let value): if field == "major" { major = UInt16(value) } else { minor = UInt16(value) }
                case .failure(let problem):
                    context.error(file, row.line, "\(field): '\(problem.text)' is not a whole number from 0 to 65535")
                    failed = true
                }
            }
            var power: Int8? = nil
            if let column = columns["power"], !row.string(column).isEmpty {
                if let value = Int(row.string(column)), (-127...20).contains(value) {
                    power = Int8(value)
                } else {
                    context.error(file, row.line, "power: '\(row.string(column))' is not a measured power at 1 m in dBm from -127 to 20")
                    failed = true
                }
            }
            if minor != nil, major == nil {
                context.error(file, row.line, "minor without major: CoreLocation regions need a major to have a minor")
                failed = true
            }
            // Position.
            let x = context.number(row, columns["x"], file: file, field: "x", failed: &failed)
            let y = context.number(row, columns["y"], file: file, field: "y", failed: &failed)
            let levelText = row.string(columns["level"] ?? -1)
            let radius = context.number(row, columns["radius"], file: file, field: "radius", failed: &failed)
            let tags = row.string(columns["tags"] ?? -1).split(whereSeparator: { $0 == " " || $0 == ";" || $0 == "|" }).map(String.init)
            if !levelText.isEmpty, !context.levelExists(levelText, file: file, line: row.line) { failed = true }
            if (x == nil) != (y == nil), !failed {
                context.error(file, row.line, "position needs both x and y, or neither (an unplaced wildcard region)")
                failed = true
            }
            if x != nil, levelText.isEmpty {
                context.error(file, row.line, "level: missing (a region with x and y needs a level)")
                failed = true
            }
            if x == nil, !failed, !tags.contains(Region.pinnedTag) {
                context.error(
                    file, row.line,
                    "region '\(id)' has no position, so it must be tagged '\(Region.pinnedTag)' (only pinned regions may be unplaced)")
                failed = true
            }
            if radius == nil, x != nil, !failed {
                context.error(file, row.line, "radius: missing")
                failed = true
            }
            if let radius, radius < 0 {
                context.error(file, row.line, "radius: \(radius) is negative")
                failed = true
            }
            guard !failed, let uuid else { return }
            let radiusValue = radius ?? 0
            if radiusValue == 0, x != nil {
                context.warning(file, row.line, "radius 0: a phone is inside region '\(id)' only exactly at its beacon")
            }
            let position = x.map { VenuePoint(x: $0, y: y!, level: levelText) }
            context.regions.append(
                Region(
                    id: id, identity: RegionIdentity(uuid: uuid, major: major, minor: minor), position: position,
                    level: levelText.isEmpty ? nil : levelText, radius: radiusValue, measuredPower: power, tags: tags,
                    source: SourceLocation(file: filePath, line: row.line)))
        }
    }

    mutating func parseWaypoints(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.waypoints
        let filePath = path(file)  // one shared string for every record's location
        parseCSV(bytes, file: file, required: ["id", "x", "y", "level"], optional: ["name"]) { context, row, columns in
            guard let id = context.id(row, columns["id"], file: file, field: "id") else { return }
            var failed = false
            let x = context.number(row, columns["x"], file: file, field: "x", failed: &failed)
            let y = context.number(row, columns["y"], file: file, field: "y", failed: &failed)
            let level = row.string(columns["level"] ?? -1)
            guard let position = context.position(x: x, y: y, level: level, of: "a waypoint", file: file, line: row.line, failed: &failed)
            else { return }
            context.waypoints.append(
                Waypoint(id: id, position: position, source: SourceLocation(file: filePath, line: row.line)))
        }
    }

    mutating func parseGateways(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.gateways
        let filePath = path(file)  // one shared string for every record's location
        parseCSV(
            bytes, file: file, required: ["id", "x", "y", "level"],
            optional: ["z", "height", "name", "rssi_offset", "path_loss_exponent", "window", "min_rssi"]
        ) { context, row, columns in
            guard let id = context.id(row, columns["id"], file: file, field: "id") else { return }
            var failed = false
            let x = context.number(row, columns["x"], file: file, field: "x", failed: &failed)
            let y = context.number(row, columns["y"], file: file, field: "y", failed: &failed)
            let height = context.number(row, columns["z"] ?? columns["height"], file: file, field: "z", failed: &failed)
            let (rssiOffset, exponent) = context.gatewayCalibration(row, columns, file: file, failed: &failed)
            let window = context.number(row, columns["window"], file: file, field: "window", failed: &failed)
            if let window, !(0.01...3600).contains(window) {
                context.error(file, row.line, "window: \(window) s is outside 0.01…3600 (what an agent's window may be)")
                failed = true
            }
            let minRSSI = context.number(row, columns["min_rssi"], file: file, field: "min_rssi", failed: &failed)
            if let minRSSI, !(-127...20).contains(minRSSI) || minRSSI != minRSSI.rounded() {
                context.error(file, row.line, "min_rssi: \(minRSSI) is not a whole number of dBm from -127 to 20")
                failed = true
            }
            let level = row.string(columns["level"] ?? -1)
            guard let position = context.position(x: x, y: y, level: level, of: "a gateway", file: file, line: row.line, failed: &failed)
            else { return }
            context.gateways.append(
                Gateway(
                    id: id, position: position, height: height, rssiOffset: rssiOffset, pathLossExponent: exponent, window: window,
                    minRSSI: minRSSI.map { Int($0) }, source: SourceLocation(file: filePath, line: row.line)))
        }
    }

    mutating func parseLinks(_ bytes: [UInt8]) {
        let file = TopologyLoader.FileName.links
        let filePath = path(file)  // one shared string for every record's location
        parseCSV(bytes, file: file, required: ["from", "to"], optional: ["distance", "kind"]) { context, row, columns in
            let from = row.string(columns["from"] ?? -1)
            let to = row.string(columns["to"] ?? -1)
            var failed = false
            if from.isEmpty {
                context.error(file, row.line, "from: missing")
                failed = true
            }
            if to.isEmpty {
                context.error(file, row.line, "to: missing")
                failed = true
            }
            let distance = context.number(row, columns["distance"], file: file, field: "distance", failed: &failed)
            if let distance, distance < 0 {
                context.error(file, row.line, "distance: \(distance) is negative")
                failed = true
            }
            let kindText = row.string(columns["kind"] ?? -1).lowercased()
            var kind = LinkKind.walk
            if !kindText.isEmpty {
                if let parsed = LinkKind(rawValue: kindText) {
                    kind = parsed
                } else {
                    context.error(
                        file, row.line, "kind: '\(kindText)' is not one of \(LinkKind.allCases.map(\.rawValue).joined(separator: ", "))")
                    failed = true
                }
            }
            guard !failed else { return }
            context.rawLinks.append(
                RawLink(from: from, to: to, distance: distance, kind: kind, source: SourceLocation(file: filePath, line: row.line)))
        }
    }
}

/// 64-bit FNV-1a, for the topology revision.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }
    }
    var hex: String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
