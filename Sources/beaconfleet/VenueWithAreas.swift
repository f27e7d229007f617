import Foundation

/// A venue directory given other rooms: its `.csv` and `.conf` files copied into a directory of
/// its own with another `areas.csv`, for a coordinator or a simulation to load from there. The
/// example venues keep their rooms in `rooms/areas.csv` beside them (walls would change their
/// planning); presence needs them.
enum VenueWithAreas {
    /// Writes the copy of `directory` with `areas` as its `areas.csv` into `copy` (replaced if it exists).
    static func write(_ directory: URL, areas: URL, into copy: URL) throws {
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where name.hasSuffix(".csv") || name.hasSuffix(".conf") {
            guard name != "areas.csv" else { continue }
            try FileManager.default.copyItem(at: directory.appendingPathComponent(name), to: copy.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: areas, to: copy.appendingPathComponent("areas.csv"))
    }

    /// The rooms kept beside a venue without its own: `rooms/areas.csv`, when it exists and the
    /// venue has no `areas.csv`.
    static func keptBeside(_ directory: URL) -> URL? {
        let own = directory.appendingPathComponent("areas.csv")
        let beside = directory.appendingPathComponent("rooms/areas.csv")
        guard !FileManager.default.fileExists(atPath: own.path), FileManager.default.fileExists(atPath: beside.path) else { return nil }
        return beside
    }
}
