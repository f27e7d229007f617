import Foundation

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
        let features = topology.areas.map { area in
            var ring = area.polygon.points
            if let first = ring.first { ring.append(first) }
            let coordinates = ring.map { point -> [Double] in
                let (lat, lon) = origin.unproject(point)
                return [Self.degrees(lon), Self.degrees(lat)]
            }
            return Feature(
                id: area.id, geometry: .init(coordinates: [coordinates]),
                properties: .init(category: area.kind.isEmpty ? "room" : area.kind, name: ["en": area.name], levelID: area.level))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and finite numbers only (unproject of finite metres): encoding cannot fail.
        let data = (try? encoder.encode(FeatureCollection(features: features))) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// `value` to 1e-8 degrees (about 1 mm).
    static func degrees(_ value: Double) -> Double { (value * 1e8).rounded() / 1e8 }

    struct FeatureCollection: Encodable {
        var type = "FeatureCollection"
        var features: [Feature]
    }

    struct Feature: Encodable {
        var type = "Feature"
        var id: String
        var featureType = "unit"
        var geometry: Polygon
        var properties: Properties

        enum CodingKeys: String, CodingKey {
            case type, id, geometry, properties
            case featureType = "feature_type"
        }
    }

    struct Polygon: Encodable {
        var type = "Polygon"
        var coordinates: [[[Double]]]
    }

    struct Properties: Encodable {
        var category: String
        var name: [String: String]
        var levelID: String

        enum CodingKeys: String, CodingKey {
            case category, name
            case levelID = "level_id"
        }
    }
}
