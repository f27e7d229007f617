import BeaconKit
import Coordinator
public import Foundation
import Planner
public import Topology
import WireProtocol

/// Room presence on a real recording: the flat-walk dataset's robot run (Kolakowski, Sensors
/// 21:6270, 2021; CC BY 4.0, `../shared/data/datasets/flat-walk`), a tag carried by a robot through
/// a furnished flat past six BLE anchors, about three readings a second, with the robot's own
/// position as the truth. Replayed as the six gateways' one-second windows into a
/// ``Coordinator/CoordinatorEngine`` on `topology/flat-walk` (rooms drawn from the dataset's
/// `layout.csv`), and scored like ``PresenceSimulation``: the room the engine's room events show,
/// and the room of its estimate as the baseline, against the room holding the robot.
///
/// The robot's frame is the flat's turned half a turn: flat x = 0.874 − robot x, flat y = 5.970 −
/// robot y (every one of the 1,093 robot positions then lies inside a room; any other of the
/// eight turns and mirrors puts hundreds outside). The run's columns `rssi_3 … rssi_11` are the
/// anchors 1, 2, 3, 6, 5, 4 of `anchors.csv` (the assignment whose path-loss lines fit best, each
/// falling with distance); the dataset does not document it.
public struct FlatWalkPresence: Sendable {
    /// One reading row: time (seconds), the robot in the flat's frame, the six anchors' RSSI (nil: not heard).
    struct Row: Sendable {
        var time: Double
        var x: Double
        var y: Double
        var rssi: [Double?]
    }

    /// The anchors (gateway ids of `topology/flat-walk`) the columns `rssi_3, rssi_4, rssi_5, rssi_8, rssi_10, rssi_11` are.
    static let columnAnchors = ["anchor-1", "anchor-2", "anchor-3", "anchor-6", "anchor-5", "anchor-4"]
    static let columns = ["rssi_3", "rssi_4", "rssi_5", "rssi_8", "rssi_10", "rssi_11"]
    /// The tag's power at 1 m as the sightings state it: the anchors' line fitted over the run
    /// (`topology/flat-walk/venue.conf`: −44 dBm at 1 m, exponent 2.4).
    static let measuredPower = -44

    let rows: [Row]

    /// Reads `calibration/calib_df.csv` of the dataset directory.
    public init(directory: Foundation.URL) throws {
        let file = directory.appendingPathComponent("calibration/calib_df.csv")
        guard let text = try? String(contentsOf: file, encoding: .utf8) else {
            throw SimulationError.unreadable(file: file.path, reason: "no such file, or not UTF-8")
        }
        var lines = text.split(whereSeparator: \.isNewline).map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = lines.first else { throw SimulationError.malformed(file: file.path, line: 1, reason: "empty") }
        lines.removeFirst()
        func column(_ name: String) throws -> Int {
            guard let index = header.firstIndex(of: name) else {
                throw SimulationError.malformed(file: file.path, line: 1, reason: "no column '\(name)'")
            }
            return index
        }
        let (ts, x, y) = (try column("ts"), try column("x"), try column("y"))
        let rssi = try Self.columns.map(column)
        var rows: [Row] = []
        for (offset, fields) in lines.enumerated() where fields.count == header.count {
            guard let t = Double(fields[ts]), let rx = Double(fields[x]), let ry = Double(fields[y]) else {
                throw SimulationError.malformed(file: file.path, line: offset + 2, reason: "ts, x or y is not a number")
            }
            rows.append(Row(time: t / 1e9, x: 0.874 - rx, y: 5.970 - ry, rssi: rssi.map { Double(fields[$0]) }))
        }
        guard let first = rows.first?.time else { throw SimulationError.malformed(file: file.path, line: 2, reason: "no rows") }
        self.rows = rows.map {
            var row = $0; row.time -= first; return row
        }
    }

    /// Replays the run through a fresh engine on `topology` and scores the room shown and the
    /// estimate's room; `window` seconds per gateway window.
    public func run(topology: Topology, window: Double = 1) throws -> PresenceSimulation.Report {
        let venue = try CoordinatorVenue(topology: topology, budget: topology.budget ?? 20)
        let topics = try Topics()
        let engine = CoordinatorEngine(venue: venue)
        var feed = GatewayFeed(engine: engine, topics: topics, gateways: Self.columnAnchors.count)
        let tag = SimulatedTag(major: 1, minor: 1)
        let client = tag.client
        let gateways = try Self.columnAnchors.map { id -> String in
            guard topology.gatewayIndex(id: id) != nil, let identifier = Identifier(validating: id) else {
                throw SimulationError.unsuitableTopology("'\(topology.name)' has no gateway '\(id)' for the flat-walk anchors")
            }
            return topics.sightings(identifier)
        }
        let roomByID = Dictionary(topology.areas.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        let start: Double = 1_800_000_000
        var shown: Int?
        var filter = PresenceScore.Recorder()
        var baseline = PresenceScore.Recorder()
        var levelFilter = PresenceScore.Recorder()
        var levelBaseline = PresenceScore.Recorder()
        var next = 0
        var end = window
        let last = rows.last?.time ?? 0
        while end <= last + window {
            // Every anchor's readings of the window, averaged, as its agent would publish them.
            var sums = [Double](repeating: 0, count: gateways.count)
            var counts = [Int](repeating: 0, count: gateways.count)
            var truth: Row?
            while next < rows.count, rows[next].time < end {
                for (a, value) in rows[next].rssi.enumerated() {
                    if let value {
                        sums[a] += value
                        counts[a] += 1
                    }
                }
                truth = rows[next]
                next += 1
            }
            let millis = Int64(((start + end) * 1000).rounded())
            for (a, topic) in gateways.enumerated() {
                var sightings: [Sighting] = []
                if counts[a] > 0 {
                    let rssi = sums[a] / Double(counts[a])
                    sightings.append(
                        tag.sighting(rssi: rssi, rssiMax: Int(rssi.rounded(.up)), count: counts[a], txPower: Self.measuredPower))
                }
                try feed.publish(
                    sightings, gateway: a, id: Self.columnAnchors[a], topic: topic,
                    start: Date(timeIntervalSince1970: start + end - window),
                    end: Date(timeIntervalSince1970: start + end), now: millis)
            }
            engine.flush(now: millis)
            for case .event(_, let event) in engine.take().outputs {
                guard let room = event.room, let index = roomByID[room] else { continue }
                if event.type == .enter { shown = index } else if shown == index { shown = nil }
            }
            if let truth {
                let level = topology.levels[0].id
                let truthRoom = topology.room(at: VenuePoint(x: truth.x, y: truth.y, level: level))
                let estimate = engine.snapshot(of: client)?.position
                let estimateRoom = estimate.flatMap { topology.room(at: VenuePoint(x: $0.x, y: $0.y, level: $0.level)) }
                filter.record(time: end, truth: truthRoom, shown: shown)
                baseline.record(time: end, truth: truthRoom, shown: estimateRoom)
                levelFilter.record(time: end, truth: 0, shown: estimate == nil ? nil : 0)
                levelBaseline.record(time: end, truth: 0, shown: estimate == nil ? nil : 0)
            }
            end += window
        }
        return PresenceSimulation.Report(
            venue: topology.name, clients: .tags, count: 1, seconds: last, seed: 0, pauses: nil,
            methods: [
                PresenceSimulation.Method(name: "room-filter", room: filter.finish(), level: levelFilter.finish()),
                PresenceSimulation.Method(name: "estimate-room", room: baseline.finish(), level: levelBaseline.finish()),
            ])
    }
}
