import ArgumentParser
import Foundation
import Topology

/// `beaconfleet topology`: check, export and generate venue topologies.
struct TopologyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topology",
        abstract: "Check, export and generate venue topologies.",
        discussion: """
            A venue is a directory of line-oriented files (venue.conf, levels.csv, regions.csv, \
            waypoints.csv, gateways.csv, links.csv); topology/README.md documents the format.

            Examples:
              beaconfleet topology check topology/museum
              beaconfleet topology export topology/mall > mall.json
              beaconfleet topology generate --regions 100000 --levels 3 --seed 7 \\
                  --out /tmp/venue
            """,
        subcommands: [Check.self, Export.self, Generate.self, ImportIMDF.self, ExportGeoJSON.self]
    )

    /// `beaconfleet topology check DIR`.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a venue: every error and warning with its file and line, then statistics.",
            discussion: """
                Errors: malformed fields, unknown levels, duplicate ids or beacon identities, links to \
                unknown nodes, negative or missing distances, parts of the graph unreachable from \
                the rest, more pinned regions than the budget. Exits 1 when there is an error.

                Examples:
                  beaconfleet topology check topology/museum
                  beaconfleet topology check --budget 5 topology/mall
                  beaconfleet topology check --quiet topology/tetam && echo valid
                """
        )

        @Argument(help: "The venue directory.")
        var directory: String

        @Option(help: "Check the pinned regions against this budget instead of venue.conf's (default 20).")
        var budget: Int?

        @Flag(name: .shortAndLong, help: "Print only errors and warnings, no statistics.")
        var quiet = false

        func run() async throws {
            let result = TopologyLoader(budget: budget).load(directory: URL(fileURLWithPath: directory))
            for diagnostic in result.diagnostics { print(diagnostic) }
            let errors = result.errors.count
            let warnings = result.warnings.count
            guard let topology = result.topology else {
                print("\(directory): invalid: \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
                throw ExitCode(1)
            }
            if !quiet {
                let stats = topology.statistics
                print("\(directory): valid (\(warnings) warning\(warnings == 1 ? "" : "s"))")
                print("  name        \(topology.name)")
                print("  revision    \(topology.revision)")
                print(
                    "  levels      \(stats.levels): "
                        + topology.levels.map { "\($0.id) (\(stats.regionsPerLevel[$0.id] ?? 0) regions)" }.joined(separator: ", "))
                print(
                    "  regions     \(stats.regions) (\(stats.placedRegions) placed, \(stats.pinnedRegions) pinned, \(stats.wildcardRegions) wildcard)"
                )
                print("  waypoints   \(stats.waypoints)")
                print("  gateways    \(stats.gateways)")
                let kinds = LinkKind.allCases.compactMap { kind in stats.linksByKind[kind].map { "\($0) \(kind.rawValue)" } }
                print(
                    "  links       \(stats.links) (\(kinds.joined(separator: ", "))), \(String(format: "%.1f", stats.walkableLength)) m walkable"
                )
                print("  radius      up to \(stats.maximumRadius) m")
                let ranges = topology.detectionRanges.enumerated().filter { topology.regions[$0.offset].position != nil }.map(\.element)
                if let low = ranges.min(), let high = ranges.max() {
                    let span =
                        low == high ? "\((low * 10).rounded() / 10) m" : "\((low * 10).rounded() / 10) to \((high * 10).rounded() / 10) m"
                    print(
                        "  detection   \(span) (default power \(topology.radio.measuredPower) dBm at 1 m, sensitivity \(topology.radio.sensitivity) dBm, exponent \(topology.radio.pathLossExponent))"
                    )
                }
                print("  budget      \(budget ?? topology.budget ?? 20) slots, \(stats.pinnedRegions) pinned")
            }
        }
    }

    /// `beaconfleet topology export DIR`.
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a venue as canonical JSON (the form other tools read).",
            discussion: """
                Regions with identity, position, level, radius and tags; waypoints; gateways; links \
                with the walking distance the planner uses (derived ones computed). One item per \
                line, keys in a fixed order. The venue must be valid (see `topology check`).

                Examples:
                  beaconfleet topology export topology/museum > museum.json
                  beaconfleet topology export topology/mall --out mall.json
                """
        )

        @OptionGroup var venue: VenueExportOptions

        func run() async throws {
            try venue.export { TopologyExporter().json($0) }
        }
    }

    /// `beaconfleet topology generate`.
    struct Generate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a realistic venue: corridors, rooms, levels joined by stairs and a lift.",
            discussion: """
                The same arguments give the same files, byte for byte. Regions sit 1 to 5 to a room \
                along corridors; gateways are on the corridors; one venue-wide UUID-only region is \
                pinned. Up to 1,000,000 regions (about 70 MB of files).

                Examples:
                  beaconfleet topology generate --regions 1000 --seed 1 --out /tmp/venue-1k
                  beaconfleet topology generate --regions 100000 --levels 4 --seed 42 \\
                      --out /tmp/venue-100k
                """
        )

        @Option(help: "Placed regions to generate (1 to 1,000,000).")
        var regions: Int

        @Option(help: "Levels (1 to 100).")
        var levels: Int = 1

        @Option(help: "Random seed: the same seed gives the same venue.")
        var seed: UInt64

        @Option(help: "The directory to write (created when missing; existing venue files are overwritten).")
        var out: String

        func validate() throws {
            guard (1...1_000_000).contains(regions) else { throw ValidationError("--regions must be from 1 to 1000000, got \(regions)") }
            guard (1...100).contains(levels) else { throw ValidationError("--levels must be from 1 to 100, got \(levels)") }
            guard regions >= levels else { throw ValidationError("--regions (\(regions)) must be at least --levels (\(levels))") }
        }

        func run() async throws {
            let generator = VenueGenerator(regions: regions, levels: levels, seed: seed)
            do { try generator.write(to: URL(fileURLWithPath: out)) } catch {
                throw ValidationError("cannot write the venue to \(out): \(error.localizedDescription)")
            }
            print(
                "wrote \(out): \(regions) regions on \(levels) level\(levels == 1 ? "" : "s") (seed \(seed)); check it with `beaconfleet topology check \(out)`"
            )
        }
    }
}

/// Loads a venue, or prints every error (with file and line) on standard error and exits 1.
/// The arguments of a subcommand that prints something made of a valid venue: the venue
/// directory, and the file to write instead of standard output.
struct VenueExportOptions: ParsableArguments {
    @Argument(help: "The venue directory.")
    var directory: String

    @Option(help: "Write to this file instead of standard output.")
    var out: String?

    /// Loads the venue (``loadTopologyOrExit(_:budget:)``) and writes what `make` makes of it
    /// (``writeOutput(_:to:)``).
    func export(_ make: (Topology) throws -> String) throws {
        try writeOutput(try make(try loadTopologyOrExit(directory)), to: out)
    }
}

func loadTopologyOrExit(_ directory: String, budget: Int? = nil) throws -> Topology {
    let result = TopologyLoader(budget: budget).load(directory: URL(fileURLWithPath: directory))
    guard let topology = result.topology else {
        for diagnostic in result.errors { FileHandle.standardError.write(Data("\(diagnostic)\n".utf8)) }
        FileHandle.standardError.write(
            Data("\(directory): invalid topology (\(result.errors.count) errors); see `beaconfleet topology check \(directory)`\n".utf8))
        throw ExitCode(1)
    }
    return topology
}
