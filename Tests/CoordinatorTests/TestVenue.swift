import BeaconKit
import Coordinator
import Foundation
import TestSupport
import Topology
import WireProtocol

/// A corridor on one level: regions `r0`…`r(n-1)` every 5 m along x (radius 2, iBeacon
/// `regionUUID` 1/i) joined by walkable links, a pinned venue-wide region `venue`, and gateways
/// `g0`… every 20 m. A real ``Topology`` (written to a temporary directory and loaded), planned
/// and estimated by the real planner and estimator.
enum TestVenue {
    static let regionUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    /// The simulated tags' UUID, which the example venues' `clients.csv` admit (tests that run on them need that).
    static let tagUUID = "5A1D0000-BEAC-4F1E-9E70-000000000001"

    static func topology(regions count: Int = 30, skipping: Set<String> = []) throws -> Topology {
        try load(files(regions: count, skipping: skipping))
    }

    /// The corridor's files, by name.
    static func files(regions count: Int = 30, skipping: Set<String> = []) -> [String: String] {
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\nvenue,,,,,,,,pinned\n"
        var links = "from,to\n"
        var previous: String?
        for i in 0..<count where !skipping.contains("r\(i)") {
            regions += "r\(i),,1,\(i),\(i * 5),0,L0,2,\n"
            if let previous { links += "\(previous),r\(i)\n" }
            previous = "r\(i)"
        }
        var gateways = "id,x,y,level\n"
        for g in 0...(count * 5 / 20) { gateways += "g\(g),\(g * 20),0,L0\n" }
        return [
            "venue.conf": "name = corridor\nuuid = \(regionUUID)\n", "levels.csv": "id\nL0\n",
            "regions.csv": regions, "links.csv": links, "gateways.csv": gateways,
        ]
    }

    /// A venue from its files' text (written to a temporary directory and loaded).
    static func load(_ files: [String: String]) throws -> Topology {
        let directory = try write(files)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try Topology.load(directory: directory)
    }

    /// Writes a venue's files to a new temporary directory (the caller removes it).
    static func write(_ files: [String: String]) throws -> URL {
        try writeTemporaryFiles(files, prefix: "coordinator-test")
    }

    /// The corridor as the coordinator uses it, planning `budget` slots at most with `planner`.
    static func make(regions count: Int = 30, skipping: Set<String> = [], budget: Int = 20, planner: PlannerChoice = .frontier) throws
        -> CoordinatorVenue
    {
        // The readings these tests write follow the estimator's default model (-59 dBm at 1 m).
        try CoordinatorVenue(topology: topology(regions: count, skipping: skipping), budget: budget, planner: planner, estimator: .init())
    }

    static let topics = try! Topics()

    /// The RSSI the estimator's default radio model expects from a gateway (2.5 m up) hearing a
    /// tag (1.2 m up) `distance` metres away along the floor.
    static func rssi(distance: Double) -> Double {
        let d = (distance * distance + 1.3 * 1.3).squareRoot()
        return ((-59 - 20 * log10(d)) * 10).rounded() / 10
    }

    /// A sightings batch payload from `gateway` hearing tags (minor → distance in metres along the
    /// floor, sent as the model's RSSI for it).
    static func batch(
        seq: UInt64, epoch: UInt64? = nil, at seconds: Double, tags: [(minor: UInt16, distance: Double)], regionBeacons: [UInt16] = []
    ) -> [UInt8] {
        let start = Date(timeIntervalSince1970: 1_795_424_400 + seconds)
        var sightings = tags.map {
            Sighting(
                format: "ibeacon", uuid: tagUUID, major: 7, minor: $0.minor, address: "AA:BB:CC:DD:EE:01",
                rssi: rssi(distance: $0.distance),
                rssiMax: -55, count: 5, txPower: -59, distance: $0.distance)
        }
        sightings += regionBeacons.map {
            Sighting(
                format: "ibeacon", uuid: regionUUID, major: 1, minor: $0, address: "AA:BB:CC:DD:EE:02", rssi: -70, rssiMax: -65, count: 5)
        }
        return try! WireCoding.encode(
            SightingsBatch(seq: seq, epoch: epoch, start: start, end: start.addingTimeInterval(1), sightings: sightings))
    }

    static func millis(_ seconds: Double) -> Int64 { Int64((1_795_424_400 + seconds) * 1000) }

    /// The first `regions` version of a client record planned at `seconds` (epoch-based: the
    /// clock in milliseconds, see docs/wire.md).
    static func firstVersion(at seconds: Double) -> UInt64 { UInt64(millis(seconds)) }

    static func tagID(_ minor: UInt16) -> String { "\(tagUUID).7.\(minor)" }
}

extension CoordinatorEngine {
    /// Reads one message as the coordinator does and applies it, throwing its rejection.
    func handle(topic: String, payload: [UInt8], now: Int64) throws(WireError) {
        try apply(InboundDecoder(topics: TestVenue.topics).decode(topic: topic, payload: payload), now: now)
    }

    /// Feeds one message, failing the test on a rejection.
    func feed(_ topic: String, _ payload: [UInt8], at seconds: Double) throws {
        try handle(topic: topic, payload: payload, now: TestVenue.millis(seconds))
    }

    func feed(_ topic: String, _ payload: some Encodable, at seconds: Double) throws {
        try feed(topic, try WireCoding.encode(payload), at: seconds)
    }

    /// Makes `phone` (a client that sends reports on its report topic) the advertiser of tag
    /// `minor`'s identity: from now on the gateways' sightings of that identity are the phone's,
    /// and, unlike a tag, it is planned (gets `regions` messages).
    func declarePhone(_ phone: String, advertising minor: UInt16, at seconds: Double) throws {
        let advertising = AdvertisedIdentity(uuid: TestVenue.tagUUID, major: 7, minor: minor)
        try feed(TestVenue.topics.clientReport(try Identifier(phone)), ClientReport(advertising: advertising), at: seconds)
    }

    /// Feeds `phone`'s `report` at `seconds`, steps then, and answers what the engine knows of the phone.
    @discardableResult
    func report(_ phone: String, _ report: ClientReport, at seconds: Double) throws -> ClientSnapshot? {
        try feed(TestVenue.topics.clientReport(try Identifier(phone)), report, at: seconds)
        _ = step(at: seconds)
        return snapshot(of: phone)
    }

    /// Flushes and returns the outputs.
    func step(at seconds: Double) -> [CoordinatorOutput] {
        flush(now: TestVenue.millis(seconds))
        return take().outputs
    }
}

extension [CoordinatorOutput] {
    var regionsMessages: [(String, RegionsMessage)] {
        compactMap { if case .regions(let client, let message) = $0 { (client, message) } else { nil } }
    }
    var events: [ClientEvent] {
        compactMap { if case .event(_, let event) = $0 { event } else { nil } }
    }
}
