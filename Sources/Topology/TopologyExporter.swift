import Foundation
import WireProtocol

/// Writes a topology as canonical JSON: the form other tools read (`beaconfleet topology
/// export`). Keys always in the same order, one level, region, waypoint, gateway or link per
/// line, links with the walking distance the planner uses, so exports diff well.
public struct TopologyExporter: Sendable {
    public init() {}

    /// The canonical JSON text of `topology`, ending with a newline.
    public func json(_ topology: Topology) -> String {
        var out = "{\n"
        out += "\"format\": \"beaconfleet-topology\",\n\"version\": 1,\n"
        out += "\"name\": \(Self.quoted(topology.name)),\n\"revision\": \(Self.quoted(topology.revision)),\n"
        out += "\"budget\": \(topology.budget.map(String.init) ?? "null"),\n"
        if let origin = topology.origin {
            out += "\"origin\": {\"lat\": \(Self.number(origin.latitude)), \"lon\": \(Self.number(origin.longitude))},\n"
        }
        func list<T>(_ key: String, _ items: [T], last: Bool = false, _ render: (T) -> String) {
            out += "\"\(key)\": ["
            for (index, item) in items.enumerated() {
                out += index == 0 ? "\n" : ",\n"
                out += render(item)
            }
            out += items.isEmpty ? "]" : "\n]"
            out += last ? "\n" : ",\n"
        }
        list("levels", topology.levels) { level in
            "{\"id\": \(Self.quoted(level.id)), \"name\": \(Self.quoted(level.name)), \"elevation\": \(Self.number(level.elevation))}"
        }
        list("regions", Array(topology.regions.enumerated())) { index, region in
            var text = "{\"id\": \(Self.quoted(region.id)), \"uuid\": \"\(region.identity.uuidString)\""
            text +=
                ", \"major\": \(region.identity.major.map(String.init) ?? "null"), \"minor\": \(region.identity.minor.map(String.init) ?? "null")"
            if let position = region.position {
                text += ", \"x\": \(Self.number(position.x)), \"y\": \(Self.number(position.y))"
            } else {
                text += ", \"x\": null, \"y\": null"
            }
            text += ", \"level\": \(region.level.map(Self.quoted) ?? "null"), \"radius\": \(Self.number(region.radius))"
            text +=
                ", \"power\": \(region.measuredPower.map { String($0) } ?? "null"), \"detection\": \(Self.number((topology.detectionRanges[index] * 100).rounded() / 100))"
            text += ", \"tags\": [\(region.tags.map(Self.quoted).joined(separator: ", "))]}"
            return text
        }
        list("waypoints", topology.waypoints) { waypoint in
            "{\"id\": \(Self.quoted(waypoint.id)), \"x\": \(Self.number(waypoint.position.x)), \"y\": \(Self.number(waypoint.position.y)), \"level\": \(Self.quoted(waypoint.position.level))}"
        }
        list("gateways", topology.gateways) { gateway in
            "{\"id\": \(Self.quoted(gateway.id)), \"x\": \(Self.number(gateway.position.x)), \"y\": \(Self.number(gateway.position.y)), \"level\": \(Self.quoted(gateway.position.level)), \"z\": \(gateway.height.map(Self.number) ?? "null")}"
        }
        if !topology.areas.isEmpty {
            list("areas", topology.areas) { area in
                let outline = area.polygon.points.map { "[\(Self.number($0.x)), \(Self.number($0.y))]" }.joined(separator: ", ")
                return
                    "{\"id\": \(Self.quoted(area.id)), \"level\": \(Self.quoted(area.level)), \"name\": \(Self.quoted(area.name)), \"kind\": \(Self.quoted(area.kind)), \"polygon\": [\(outline)]}"
            }
        }
        list("links", topology.links, last: true) { link in
            "{\"from\": \(Self.quoted(link.from)), \"to\": \(Self.quoted(link.to)), \"distance\": \(Self.number(link.distance)), \"kind\": \"\(link.kind.rawValue)\", \"derived\": \(link.isDerived)}"
        }
        out += "}\n"
        return out
    }

    /// The shortest text that reads back as the same Double.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String { JSONBytes.quoted(text) }
}
