import BeaconKit
import Coordinator
import Foundation
import WireProtocol

/// A corridor on one level: regions `r0`…`r(n-1)` every 5 m along x (radius 2, iBeacon
/// `regionUUID` 1/i), a pinned venue-wide region `venue`, and gateways `g0`… every 20 m.
enum TestVenue {
    static let regionUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let tagUUID = "11111111-2222-3333-4444-555555555555"

    static func make(regions count: Int = 30, revision: String = "r1", skipping: Set<String> = []) -> VenueIndex {
        var regions: [VenueRegion] = [
            VenueRegion(id: "venue", ref: RegionRef(id: "venue", uuid: regionUUID), beacon: nil, point: nil, radius: 0, pinned: true),
        ]
        for i in 0..<count where !skipping.contains("r\(i)") {
            regions.append(VenueRegion(
                id: "r\(i)", ref: RegionRef(id: "r\(i)", uuid: regionUUID, major: 1, minor: UInt16(i)),
                beacon: BeaconIdentity(uuid: regionUUID, major: 1, minor: UInt16(i)), point: LevelPoint(x: Double(i) * 5, y: 0, level: 0),
                radius: 2, pinned: false))
        }
        var gateways: [String: LevelPoint] = [:]
        for g in 0...(count * 5 / 20) { gateways["g\(g)"] = LevelPoint(x: Double(g) * 20, y: 0, level: 0) }
        return VenueIndex(name: "corridor", revision: revision, levels: ["L0"], regions: regions, gateways: gateways)
    }

    static let topics = try! Topics()

    /// A sightings batch payload from `gateway` hearing tags (minor → distance in metres).
    static func batch(seq: UInt64, at seconds: Double, tags: [(minor: UInt16, distance: Double)], regionBeacons: [UInt16] = []) -> [UInt8] {
        let start = Date(timeIntervalSince1970: 1_795_424_400 + seconds)
        var sightings = tags.map {
            Sighting(format: "ibeacon", uuid: tagUUID, major: 7, minor: $0.minor, address: "AA:BB:CC:DD:EE:01", rssi: -60, rssiMax: -55,
                     count: 5, txPower: -59, distance: $0.distance)
        }
        sightings += regionBeacons.map {
            Sighting(format: "ibeacon", uuid: regionUUID, major: 1, minor: $0, address: "AA:BB:CC:DD:EE:02", rssi: -70, rssiMax: -65, count: 5)
        }
        return try! WireCoding.encode(SightingsBatch(seq: seq, start: start, end: start.addingTimeInterval(1), sightings: sightings))
    }

    static func millis(_ seconds: Double) -> Int64 { Int64((1_795_424_400 + seconds) * 1000) }

    static func tagID(_ minor: UInt16) -> String { "\(tagUUID).7.\(minor)" }
}

extension CoordinatorEngine {
    /// Feeds one message, failing the test on a rejection.
    func feed(_ topic: String, _ payload: [UInt8], at seconds: Double) throws {
        try payload.withUnsafeBytes { try handle(topic: topic, payload: $0, now: TestVenue.millis(seconds)) }
    }

    func feed(_ topic: String, _ payload: some Encodable, at seconds: Double) throws {
        try feed(topic, try WireCoding.encode(payload), at: seconds)
    }

    /// Flushes and returns the outputs.
    func step(at seconds: Double) -> [CoordinatorOutput] {
        flush(now: TestVenue.millis(seconds))
        return takeOutputs()
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
