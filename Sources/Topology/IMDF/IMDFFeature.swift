import Foundation

/// One GeoJSON feature of an IMDF file, read defensively: every accessor reports a problem naming
/// the file, the feature id and the field instead of trapping on input of the wrong shape.
struct IMDFFeature {
    let file: String
    let id: String
    let geometry: [String: Any]?
    let properties: [String: Any]

    /// The features of a FeatureCollection file; problems for a file that is not one.
    static func collection(_ data: Data, file: String, problems: inout [IMDFError.Problem]) -> [IMDFFeature] {
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            problems.append(.init(file: file, message: "not JSON: \(error.localizedDescription)"))
            return []
        }
        guard let root = object as? [String: Any], let features = root["features"] as? [Any] else {
            problems.append(.init(file: file, field: "features", message: "expected a GeoJSON FeatureCollection with a 'features' array"))
            return []
        }
        var result: [IMDFFeature] = []
        for (index, item) in features.enumerated() {
            guard let feature = item as? [String: Any] else {
                problems.append(.init(file: file, field: "features[\(index)]", message: "not a JSON object"))
                continue
            }
            let id: String
            if let text = feature["id"] as? String, !text.isEmpty {
                id = text
            } else if let number = feature["id"] as? NSNumber {
                id = number.stringValue
            } else {
                problems.append(
                    .init(file: file, featureID: "#\(index + 1)", field: "id", message: "missing (every IMDF feature has an id)"))
                continue
            }
            result.append(
                IMDFFeature(
                    file: file, id: id, geometry: feature["geometry"] as? [String: Any],
                    properties: feature["properties"] as? [String: Any] ?? [:]))
        }
        return result
    }

    func problem(_ field: String?, _ message: String) -> IMDFError.Problem {
        .init(file: file, featureID: id, field: field, message: message)
    }

    /// A string property; nil when absent or null.
    func string(_ key: String) -> String? { properties[key] as? String }

    /// A LABELS property (`{"en": "Lobby"}`): the text in `language`, else the first by key order.
    func label(_ key: String, language: String) -> String? {
        guard let labels = properties[key] as? [String: Any] else { return properties[key] as? String }
        if let text = labels[language] as? String, !text.isEmpty { return text }
        return labels.keys.sorted().compactMap { labels[$0] as? String }.first { !$0.isEmpty }
    }

    /// A required integer property.
    func integer(_ key: String, problems: inout [IMDFError.Problem]) -> Int? {
        guard let number = properties[key] as? NSNumber, let value = Int(exactly: number.doubleValue) else {
            problems.append(problem(key, properties[key] == nil ? "missing" : "expected a whole number"))
            return nil
        }
        return value
    }

    /// A required reference property (`level_id`).
    func reference(_ key: String, problems: inout [IMDFError.Problem]) -> String? {
        guard let value = properties[key] as? String, !value.isEmpty else {
            problems.append(problem(key, properties[key] == nil ? "missing" : "expected a feature id string"))
            return nil
        }
        return value
    }

    /// A [lon, lat] position.
    static func position(_ value: Any?) -> (lon: Double, lat: Double)? {
        guard let pair = value as? [Any], pair.count >= 2, let lon = (pair[0] as? NSNumber)?.doubleValue,
            let lat = (pair[1] as? NSNumber)?.doubleValue, lon.isFinite, lat.isFinite, abs(lat) <= 90, abs(lon) <= 180
        else { return nil }
        return (lon, lat)
    }

    /// The outer rings of a Polygon or MultiPolygon geometry, as [lon, lat] lists.
    func polygons(problems: inout [IMDFError.Problem]) -> [[(lon: Double, lat: Double)]]? {
        guard let geometry else {
            problems.append(
                problem("geometry", "missing (a \(file.replacingOccurrences(of: ".geojson", with: "")) needs a Polygon or MultiPolygon)"))
            return nil
        }
        let type = geometry["type"] as? String ?? "(none)"
        let rings: [Any]
        switch type {
        case "Polygon": rings = [geometry["coordinates"] as Any]
        case "MultiPolygon": rings = geometry["coordinates"] as? [Any] ?? []
        default:
            problems.append(problem("geometry", "expected a Polygon or MultiPolygon, got \(type)"))
            return nil
        }
        var result: [[(lon: Double, lat: Double)]] = []
        for polygon in rings {
            guard let polygon = polygon as? [Any], let outer = polygon.first as? [Any] else {
                problems.append(problem("geometry", "malformed \(type) coordinates"))
                return nil
            }
            guard let points = positions(outer, atLeast: 4, of: "a ring (closed)", problems: &problems) else { return nil }
            result.append(points)
        }
        return result
    }

    /// The positions of a LineString geometry.
    func line(problems: inout [IMDFError.Problem]) -> [(lon: Double, lat: Double)]? {
        guard let geometry else {
            problems.append(problem("geometry", "missing (an opening needs a LineString)"))
            return nil
        }
        let type = geometry["type"] as? String ?? "(none)"
        guard type == "LineString", let coordinates = geometry["coordinates"] as? [Any] else {
            problems.append(problem("geometry", "expected a LineString, got \(type)"))
            return nil
        }
        return positions(coordinates, atLeast: 2, of: "a LineString", problems: &problems)
    }

    /// Every item of `list` as a position, at least `count` of them; nil with a geometry problem.
    private func positions(
        _ list: [Any], atLeast count: Int, of what: String, problems: inout [IMDFError.Problem]
    ) -> [(lon: Double, lat: Double)]? {
        let points = list.compactMap(Self.position)
        guard points.count == list.count, points.count >= count else {
            problems.append(
                problem(
                    "geometry",
                    "\(what) needs at least \(count) [longitude, latitude] positions, got \(list.count) (\(points.count) readable)"))
            return nil
        }
        return points
    }

    /// A Point member (`display_point` in properties) or geometry.
    func point(_ value: Any?) -> (lon: Double, lat: Double)? {
        guard let point = value as? [String: Any], point["type"] as? String == "Point" else { return nil }
        return Self.position(point["coordinates"])
    }
}
