import ArgumentParser
import Foundation
import Planner
import Topology
import WireProtocol

/// `beaconfleet plan`: the region planner offline.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Plan the regions a phone should monitor at a place of a venue.",
        discussion: """
            The set is the pinned regions, then the regions the position is inside, then the nearest \
            by walking distance to each region's edge (ties broken by region id), within the budget. \
            With --monitored, the planner's hysteresis keeps what the phone already monitors where it \
            can and prints the add/remove diff.

            --stdin reads one query per line, `REGION` or `X,Y,LEVEL` (blank lines and # comments \
            skipped), so many queries share one load. A bad line gets an error naming its line on \
            standard error (and an "error" object with --json) and the run goes on; the exit status \
            is 1 when any line failed.

            With --json, one line per query: {"query", "budget", "position", "validFor", \
            "regions": [{"id", "slot", "distance", "uuid", "major", "minor"}], "add", "remove"}, \
            regions in slot order, distances in metres of walking to the region's edge.

            Examples:
              beaconfleet plan --topology topology/museum --from hall-entrance
              beaconfleet plan --topology topology/mall --at 35.5,12,L1 --budget 10 --json
              printf 'hall-entrance\\n12,4,G\\n' \\
                  | beaconfleet plan --topology topology/museum --stdin --json
            """
    )

    @Option(help: "The venue directory.")
    var topology: String

    @Option(help: "Plan from this region's position (its id).")
    var from: String?

    @Option(help: "Plan from this position: X,Y,LEVEL (metres, metres, level id), snapped onto the nearest walkable link.")
    var at: String?

    @Flag(help: "Read one query per line from standard input: REGION or X,Y,LEVEL.")
    var stdin = false

    @Option(help: "Region slots (default: venue.conf's budget, else 20).")
    var budget: Int?

    @Option(help: "Comma-separated region ids the phone monitors now: plan with hysteresis and print the diff.")
    var monitored: String?

    @Flag(help: "One JSON object per query, on one line.")
    var json = false

    func validate() throws {
        let sources = [from != nil, at != nil, stdin].filter { $0 }.count
        guard sources == 1 else { throw ValidationError("give exactly one of --from REGION, --at X,Y,LEVEL or --stdin") }
        if let budget, !(0...1000).contains(budget) { throw ValidationError("--budget must be from 0 to 1000, got \(budget)") }
    }

    func run() async throws {
        let venue = try loadTopologyOrExit(topology)
        let slots = budget ?? venue.budget ?? 20
        let planner = RegionPlanner(topology: venue, configuration: PlannerConfiguration(budget: slots))
        let search = WalkingDistanceSearch(topology: venue)
        let previous =
            monitored.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
        var output = OutputBuffer()
        var failures = 0

        func answer(_ query: String, line: Int?) {
            do {
                let location = try Self.locate(query, in: venue)
                let request = PlanRequest(location: location, monitored: previous, budget: slots, now: Date(timeIntervalSince1970: 0))
                let plan = planner.plan(request, using: search)
                output.write(
                    json
                        ? Self.json(plan, query: query, location: location, venue: venue, showDiff: monitored != nil)
                        : Self.text(plan, query: query, location: location, venue: venue, showDiff: monitored != nil))
            } catch {
                failures += 1
                let place = line.map { "stdin:\($0): " } ?? ""
                output.flush()
                FileHandle.standardError.write(Data("\(place)error: \(error) (query '\(query)')\n".utf8))
                if json {
                    output.write(Self.jsonLine(PlanFailure(query: query, line: line, error: "\(error)")))
                }
            }
        }

        if let from {
            answer(from, line: nil)
        } else if let at {
            answer(at, line: nil)
        } else {
            var lineNumber = 0
            while let raw = readLine(strippingNewline: true) {
                lineNumber += 1
                let query = (raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "")
                    .trimmingCharacters(in: .whitespaces)
                if query.isEmpty { continue }
                answer(query, line: lineNumber)
            }
        }
        output.flush()
        if failures > 0 {
            if stdin { FileHandle.standardError.write(Data("plan: \(failures) quer\(failures == 1 ? "y" : "ies") failed\n".utf8)) }
            throw ExitCode(1)
        }
    }

    /// `X,Y,LEVEL` (it has a comma) is a position to snap; anything else a region id.
    static func locate(_ query: String, in venue: Topology) throws -> GraphLocation {
        if query.contains(",") { return try venue.snap(try VenuePoint(parsing: query)) }
        return try venue.location(ofRegionID: query)
    }

    static func json(_ plan: RegionPlan, query: String, location: GraphLocation, venue: Topology, showDiff: Bool) -> String {
        let answer = PlanAnswer(
            query: query, budget: plan.budget,
            position: .init(x: location.x, y: location.y, level: location.level, offset: location.offset),
            validFor: plan.validFor.isFinite ? plan.validFor : nil,
            regions: plan.regions.map { planned in
                let identity = venue.regions[planned.region].identity
                return .init(
                    id: planned.id, slot: planned.slot.rawValue, distance: planned.distance, uuid: identity.uuidString,
                    major: identity.major, minor: identity.minor)
            },
            add: showDiff ? plan.added.map(\.id) : nil, remove: showDiff ? plan.removed : nil)
        return jsonLine(answer)
    }

    /// `value` as one line of JSON, keys sorted.
    static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain strings, integers and finite numbers only: encoding cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    static func text(_ plan: RegionPlan, query: String, location: GraphLocation, venue: Topology, showDiff: Bool) -> String {
        let place = String(format: "%.2f,%.2f,", location.x, location.y) + location.level
        let snapped = location.offset > 0 ? String(format: " (snapped %.2f m)", location.offset) : ""
        let valid = plan.validFor.isFinite ? String(format: "%.2f m", plan.validFor) : "anywhere"
        var out = "\(query): at \(place)\(snapped); \(plan.regions.count) of \(plan.budget) slots; valid for \(valid)\n"
        for (number, planned) in plan.regions.enumerated() {
            let distance = planned.distance.map { String(format: "%8.2f m", $0) } ?? "       -  "
            let identity = venue.regions[planned.region].identity
            let slot = planned.slot.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
            out += String(format: "%4d  ", number + 1) + "\(slot) \(distance)  \(planned.id)  \(identity)\n"
        }
        if showDiff {
            out += "  add:    \(plan.added.map(\.id).joined(separator: " "))\n  remove: \(plan.removed.joined(separator: " "))\n"
        }
        return out
    }
}

/// One answer of `plan --json`.
struct PlanAnswer: Encodable {
    struct Position: Encodable {
        var x: Double
        var y: Double
        var level: String
        var offset: Double
    }

    struct Region: Encodable {
        var id: String
        var slot: String
        var distance: Double?
        var uuid: String
        var major: UInt16?
        var minor: UInt16?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(slot, forKey: .slot)
            try container.encode(distance, forKey: .distance)  // null for an unplaced pinned region
            try container.encode(uuid, forKey: .uuid)
            try container.encode(major, forKey: .major)  // null: a wildcard
            try container.encode(minor, forKey: .minor)
        }

        private enum CodingKeys: String, CodingKey { case id, slot, distance, uuid, major, minor }
    }

    var query: String
    var budget: Int
    var position: Position
    /// `nil` (null): every reachable region is monitored.
    var validFor: Double?
    var regions: [Region]
    /// With `--monitored` only.
    var add: [String]?
    var remove: [String]?

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(query, forKey: .query)
        try container.encode(budget, forKey: .budget)
        try container.encode(position, forKey: .position)
        try container.encode(validFor, forKey: .validFor)
        try container.encode(regions, forKey: .regions)
        try container.encodeIfPresent(add, forKey: .add)
        try container.encodeIfPresent(remove, forKey: .remove)
    }

    private enum CodingKeys: String, CodingKey { case query, budget, position, validFor, regions, add, remove }
}

/// A query `plan --json` could not answer.
struct PlanFailure: Encodable {
    var query: String
    /// The line of standard input (`--stdin` only).
    var line: Int?
    var error: String
}

/// Buffers standard output so that thousands of answers cost few writes.
struct OutputBuffer {
    private var text = ""

    mutating func write(_ piece: String) {
        text += piece
        if text.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !text.isEmpty else { return }
        FileHandle.standardOutput.write(Data(text.utf8))
        text = ""
    }
}
