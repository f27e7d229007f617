import ArgumentParser
import Coordinator
import Foundation
import Planner
import Topology
import WireProtocol

/// `beaconfleet plan`: a region planner offline.
struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Plan the regions a phone should monitor at a place of a venue.",
        discussion: """
            --planner frontier (the default, as the coordinator's) plans for a phone iOS wakes while \
            suspended: the pinned regions, the regions whose beacons it may detect now, then quiet \
            regions whose detection wakes it before it reaches any other, then the nearest. \
            --planner nearest (NearestPlanner, the baseline) plans the pinned regions, then the \
            regions the position is inside, then the nearest by walking distance to each region's \
            edge (ties broken by region id). Both plan within the budget. With --monitored, the \
            planner's hysteresis keeps what the phone already monitors where it can and prints the \
            add/remove diff.

            --stdin reads one query per line, `REGION` or `X,Y,LEVEL` (blank lines and # comments \
            skipped), so many queries share one load. A bad line gets an error naming its line on \
            standard error (and an "error" object with --json) and the run goes on; the exit status \
            is 1 when any line failed.

            With --json, one line per query: {"query", "budget", "position", "validFor", \
            "regions": [{"id", "slot", "distance", "uuid", "major", "minor"}], "add", "remove"}, \
            regions in slot order, distances in metres of walking to the region's edge.

            Examples:
              beaconfleet plan --topology topology/museum --from hall-entrance
              beaconfleet plan --topology topology/mall --at 35.5,12,L1 --budget 10 --planner nearest --json
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

    @Option(
        help:
            "Planner: frontier (the coordinator's default: for phones iOS wakes while suspended) or nearest (the nearest regions by walking distance; a baseline)."
    )
    var planner: String = PlannerChoice.frontier.rawValue

    @Option(help: "Comma-separated region ids the phone monitors now: plan with hysteresis and print the diff.")
    var monitored: String?

    @Flag(help: "One JSON object per query, on one line.")
    var json = false

    func validate() throws {
        let sources = [from != nil, at != nil, stdin].filter { $0 }.count
        guard sources == 1 else { throw ValidationError("give exactly one of --from REGION, --at X,Y,LEVEL or --stdin") }
        if let budget, !(0...1000).contains(budget) { throw ValidationError("--budget must be from 0 to 1000, got \(budget)") }
        _ = try CoordinatorCommand.parsePlanner(planner)
    }

    func run() async throws {
        let venue = try loadTopologyOrExit(topology)
        let slots = budget ?? venue.budget ?? 20
        let planner = try CoordinatorCommand.parsePlanner(planner).planner(for: venue, budget: slots)
        // One search for every query: its memory is the size of the venue.
        let search = WalkingDistanceSearch(topology: venue)
        let previous =
            monitored.map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } } ?? []
        // Ids the venue does not know are not the planner's: they are only ever removed.
        let previousIndices = previous.compactMap { venue.regionIndex(id: $0) }
        var printer = PlanPrinter(venue: venue, monitored: monitored == nil ? nil : previous)
        var output = OutputBuffer()
        var failures = 0

        func answer(_ query: String, line: Int?) {
            do {
                let location = try Self.locate(query, in: venue)
                let request = PlanRequest(
                    location: location, monitored: previousIndices, budget: slots, now: Date(timeIntervalSince1970: 0))
                let plan = planner.plan(request, using: search)
                if json {
                    printer.json(plan, query: query, location: location, to: &output.bytes)
                } else {
                    printer.text(plan, query: query, location: location, to: &output.bytes)
                }
                output.flushIfFull()
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

    /// `value` as one line of JSON, keys sorted.
    static func jsonLine(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain strings, integers and finite numbers only: encoding cannot fail.
        return String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}

/// One answer of `plan --json`.
struct PlanAnswer: Encodable {
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
    var position: GraphLocation
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
    var bytes: [UInt8] = []

    mutating func write(_ piece: String) {
        bytes.append(contentsOf: piece.utf8)
        flushIfFull()
    }

    mutating func flushIfFull() {
        if bytes.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        guard !bytes.isEmpty else { return }
        FileHandle.standardOutput.write(Data(bytes))
        bytes.removeAll(keepingCapacity: true)
    }
}
