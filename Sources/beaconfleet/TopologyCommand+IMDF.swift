import ArgumentParser
import Foundation
import Topology

extension TopologyCommand {
    /// `beaconfleet topology import-imdf ARCHIVE --out DIR`.
    struct ImportIMDF: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-imdf",
            abstract: "Convert an Apple IMDF archive (a .zip or its unpacked directory) into a venue.",
            discussion: """
                Levels by ordinal, units as rooms (areas.csv), openings as door waypoints, units \
                linked to their doors, stairs / escalator / elevator relationships as links between \
                levels; WGS 84 projected to metres around the venue's display point (kept as \
                origin-lat / origin-lon in venue.conf). Beacons and gateways are not part of IMDF: \
                regions.csv, gateways.csv and clients.csv already in --out are kept, else written \
                with headers only. Errors name the file, the feature id and the field.

                Examples:
                  beaconfleet topology import-imdf venue.zip --out topology/myvenue
                  beaconfleet topology import-imdf unpacked/ --out /tmp/venue
                """
        )

        @Argument(help: "The IMDF archive: a .zip, or a directory holding venue.geojson, level.geojson, unit.geojson, …")
        var archive: String

        @Option(help: "The venue directory to write (created when missing).")
        var out: String

        func run() async throws {
            let result: IMDFImporter.Result
            do {
                result = try IMDFImporter().convert(try IMDFArchive(contentsOf: URL(fileURLWithPath: archive)))
            } catch {
                FileHandle.standardError.write(Data("\(archive): \(error)\n".utf8))
                throw ExitCode(1)
            }
            for warning in result.warnings { print("warning: \(warning)") }
            let kept: [String]
            do { kept = try result.write(to: URL(fileURLWithPath: out)) } catch {
                throw ValidationError("cannot write \(out): \(error.localizedDescription)")
            }
            print(
                "wrote \(out): '\(result.name)', \(result.levelCount) levels, \(result.roomCount) rooms, \(result.doorCount) doors, \(result.linkCount) links; origin \(result.origin.latitude), \(result.origin.longitude)"
            )
            if kept.isEmpty {
                print("beacons and gateways are not part of IMDF: regions.csv and gateways.csv have headers only; survey them")
            } else {
                print("kept the survey files already in \(out): \(kept.joined(separator: ", "))")
            }
            print("check it with `beaconfleet topology check \(out)`")
        }
    }

    /// `beaconfleet topology export-geojson DIR`.
    struct ExportGeoJSON: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-geojson",
            abstract: "Print a venue's rooms as WGS 84 GeoJSON (IMDF-style unit features).",
            discussion: """
                Needs origin-lat / origin-lon in venue.conf (an IMDF import writes them). A round \
                trip import → export puts every room back within millimetres.

                Examples:
                  beaconfleet topology export-geojson topology/westport > rooms.geojson
                """
        )

        @OptionGroup var venue: VenueExportOptions

        func run() async throws {
            try venue.export { topology in
                do { return try GeoJSONExporter().rooms(topology) } catch { throw ValidationError("\(venue.directory): \(error)") }
            }
        }
    }
}

/// Writes `text` to the file `out`, or to standard output when it is nil.
func writeOutput(_ text: String, to out: String?) throws {
    if let out {
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: out)) } catch {
            throw ValidationError("cannot write \(out): \(error.localizedDescription)")
        }
    } else {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
