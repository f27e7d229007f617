import Foundation
import WireProtocol

/// Writes a venue's rooms back to WGS 84 as a GeoJSON FeatureCollection of IMDF-style `unit`
/// features (`beaconfleet topology export-geojson`), so an import can be checked by a round trip
/// and the rooms drawn on any web map.
public struct GeoJSONExporter: Sendable {
    public init() {}

    /// What stands in the way of an export.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case noOrigin
        public var description: String {
            "the venue has no origin-lat / origin-lon in venue.conf: its metres cannot be placed on the Earth"
        }
    }

    /// The rooms as a FeatureCollection: one Polygon feature per room with `feature_type` `unit`,
    /// `id`, and properties `level_id` (the topology's level id), `name` ({"en": …}) and
    /// `category` (the room's kind). Coordinates to 1e-8 degrees (about 1 mm).
    public func rooms(_ topology: Topology) throws(Failure) -> String {
        guard let origin = topology.origin else { throw .noOrigin }
        var out = "{\"type\": \"FeatureCollection\", \"features\": ["
        for (index, area) in topology.areas.enumerated() {
            out += index == 0 ? "\n" : ",\n"
            var ring = area.polygon.points
            if let first = ring.first { ring.append(first) }
            let coordinates = ring.map { point -> String in
                let (lat, lon) = origin.unproject(point)
                return "[\(String(format: "%.8f", lon)), \(String(format: "%.8f", lat))]"
            }.joined(separator: ", ")
            out += "{\"type\": \"Feature\", \"id\": \(JSONBytes.quoted(area.id)), \"feature_type\": \"unit\", "
            out += "\"geometry\": {\"type\": \"Polygon\", \"coordinates\": [[\(coordinates)]]}, "
            out += "\"properties\": {\"category\": \(JSONBytes.quoted(area.kind.isEmpty ? "room" : area.kind)), "
            out += "\"name\": {\"en\": \(JSONBytes.quoted(area.name))}, \"level_id\": \(JSONBytes.quoted(area.level))}}"
        }
        out += topology.areas.isEmpty ? "]}\n" : "\n]}\n"
        return out
    }
}
