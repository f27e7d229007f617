import Foundation
import TestSupport
import Planner
import Topology

/// Venues for the planner tests.
enum PlannerFixture {
    static func example(_ name: String) throws -> Topology {
        try Topology.load(directory: SharedData.packageRoot.appendingPathComponent("topology/\(name)", isDirectory: true))
    }

    /// Six regions r1…r6 on a straight corridor at x = 0, 10, …, 50 (radius 1; or `count` of them
    /// `spacing` metres apart), plus a pinned UUID-only region: distances can be worked out by hand.
    static func corridor(regions count: Int = 6, spacing: Int = 10) throws -> Topology {
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\nall,,,,,,,,pinned\n"
        var links = "from,to\n"
        for index in 1...count {
            regions += "r\(index),,1,\(index),\((index - 1) * spacing),0,L0,1,\n"
            if index > 1 { links += "r\(index - 1),r\(index)\n" }
        }
        return try venue(regions: regions, links: links)
    }

    /// A venue of these `regions.csv`, `links.csv` (the regions are the graph's nodes) and
    /// `levels.csv` (one level by default), written to a directory of its own and loaded.
    static func venue(regions: String, links: String, levels: String = "id\nL0\n") throws -> Topology {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("planner-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        let files = [
            "venue.conf": "uuid = 11111111-2222-3333-4444-555555555555\n",
            "levels.csv": levels,
            "regions.csv": regions,
            "links.csv": links,
        ]
        for (name, text) in files { try Data(text.utf8).write(to: url.appendingPathComponent(name)) }
        return try Topology.load(directory: url)
    }

    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
}

extension Topology {
    /// The indices of the regions `ids` name (every id is the venue's), as a ``PlanRequest`` takes them.
    func indices(_ ids: [String]) -> [Int] { ids.map { regionIndex(id: $0)! } }
}

extension RegionPlan {
    /// The set in slot order, as region indices (what the next request monitors).
    var indices: [Int] { regions.map(\.region) }

    /// The ids of the regions to stop monitoring, in order.
    func removedIDs(in topology: Topology) -> [String] { removed.map { topology.regions[$0].id } }
}
