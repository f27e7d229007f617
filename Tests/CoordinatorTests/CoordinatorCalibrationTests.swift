import BeaconKit
import Coordinator
import Foundation
import Planner
import Simulator
import Testing
import Topology
import WireProtocol

/// Self-calibration inside the coordinator: region-beacon sightings on ingest, the refit applied
/// to the estimator's anchors, declared values kept, the fit persisted.
@Suite struct CoordinatorCalibrationTests {
    /// Gains per gateway of the corridor (g0…g7); g2 declares its offset in gateways.csv.
    static let gains: [Double] = [5, -6, 3, 0, -4, 7, -2, 1]

    static func files() -> [String: String] {
        var files = TestVenue.files()
        var gateways = "id,x,y,level,rssi_offset\n"
        for g in 0...(30 * 5 / 20) { gateways += "g\(g),\(g * 20),0,L0,\(g == 2 ? "1.5" : "")\n" }
        files["gateways.csv"] = gateways
        return files
    }

    /// One window of every gateway hearing every region beacon within 30 m at its gain
    /// (exponent 2.2, the venue's −70 dBm at 1 m, a deterministic ±1 dB ripple unrelated to distance).
    static func batches(topology: Topology, windows: Int) -> [(now: Int64, batch: SightingsBatch)] {
        var result: [(Int64, SightingsBatch)] = []
        for window in 0..<windows {
            let now = Int64(1_800_000_000_000) + Int64(window) * 1000
            for (g, gateway) in topology.gateways.enumerated() {
                var sightings: [Sighting] = []
                for (r, region) in topology.regions.enumerated() {
                    guard let p = region.position, let major = region.identity.major, let minor = region.identity.minor else { continue }
                    let d = abs(p.x - gateway.position.x)
                    guard d >= 1, d <= 30 else { continue }
                    let ripple = Double((r * 7 + g * 13) % 5 - 2) * 0.5
                    let rssi = (-70 + gains[g] - 22 * log10(d) + ripple).rounded()
                    sightings.append(
                        Sighting(
                            format: "ibeacon", uuid: TestVenue.regionUUID, major: major, minor: minor,
                            address: "BE:AC:00:00:00:\(String(format: "%02X", r))", rssi: rssi, rssiMax: Int(rssi), count: 10, txPower: -70,
                            distance: nil))
                }
                result.append(
                    (
                        now,
                        SightingsBatch(
                            gateway: gateway.id, seq: UInt64(window + 1), start: Date(timeIntervalSince1970: Double(now) / 1000 - 1),
                            end: Date(timeIntervalSince1970: Double(now) / 1000), sightings: sightings)
                    ))
            }
        }
        return result
    }

    static func feed(_ engine: CoordinatorEngine, topology: Topology, windows: Int) throws {
        let topics = try Topics()
        let encoder = WireCoding.makeEncoder()
        for (now, batch) in batches(topology: topology, windows: windows) {
            let payload = try encoder.encode(batch)
            let topic = topics.sightings(Identifier(validating: batch.gateway!)!)
            try engine.handle(topic: topic, payload: Array(payload), now: now)
        }
    }

    /// `beaconfleet calibrate` on the same batches recorded as JSON Lines (half bare payloads,
    /// half `TOPIC PAYLOAD`) fits what the coordinator fits; a bad line names the file and line.
    @Test func theOfflineFitOfARecordingIsTheCoordinators() throws {
        let topology = try TestVenue.load(Self.files())
        let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
        try Self.feed(engine, topology: topology, windows: 10)
        let online = try #require(engine.recalibrate(now: 1_800_000_009_000))
        let encoder = WireCoding.makeEncoder()
        var lines: [String] = []
        for (n, (_, batch)) in Self.batches(topology: topology, windows: 10).enumerated() {
            let json = String(decoding: try encoder.encode(batch), as: UTF8.self)
            lines.append(n % 2 == 0 ? json : "beaconfleet/v1/gateways/\(batch.gateway!)/sightings " + json)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("calibrate-\(UUID().uuidString).jsonl")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        var offline = RecordedCalibration(topology: topology)
        try offline.read(file: url)
        #expect(offline.fit() == online)
        try (lines[0] + "\n{\"v\":1,\"seq\":\n").write(to: url, atomically: true, encoding: .utf8)
        var broken = RecordedCalibration(topology: topology)
        #expect {
            try broken.read(file: url)
        } throws: { error in
            "\(error)".contains(url.path) && "\(error)".contains(":2")
        }
    }

    @Test func fitsOnIngestAndAppliesToTheEstimator() throws {
        let topology = try TestVenue.load(Self.files())
        #expect(topology.gateways[2].rssiOffset == 1.5)
        let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
        try Self.feed(engine, topology: topology, windows: 10)
        #expect(engine.counters.regionBeaconSightings > 0)
        let fit = try #require(engine.recalibrate(now: 1_800_000_010_000))
        for (g, gateway) in topology.gateways.enumerated() {
            let result = try #require(fit.gateway(gateway.id))
            let anchor = engine.venue.estimator.anchors[try #require(engine.venue.estimator.anchorIndex(ofGateway: gateway.id))]
            if g == 2 {
                #expect(result.offset == 1.5 && result.flags.contains("fixed"))
                #expect(anchor.rssiOffset == 1.5)
            } else {
                #expect(abs(result.offset - Self.gains[g]) < 1, "\(gateway.id): \(result.offset) against \(Self.gains[g])")
                #expect(abs(anchor.rssiOffset - result.offset) < 1e-9)
                #expect(abs((anchor.exponent ?? 0) - 2.2) < 0.2)
            }
        }
        let snapshot = engine.calibrationSnapshot
        #expect(snapshot.gateways.count == topology.gateways.count && snapshot.pairs > 0 && snapshot.fitted != nil)
    }

    @Test func theStoreKeepsTheFitAcrossARestart() throws {
        let topology = try TestVenue.load(Self.files())
        let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
        try Self.feed(engine, topology: topology, windows: 10)
        let fit = try #require(engine.recalibrate(now: 1_800_000_010_000))
        let store = try StateStore(path: ":memory:")
        #expect(try store.loadCalibration() == nil)
        try store.saveCalibration(fit, fitted: 1_800_000_010_000)
        let loaded = try #require(try store.loadCalibration())
        #expect(loaded.fit == fit && loaded.fitted == 1_800_000_010_000)
        let restarted = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
        restarted.restore(loaded.fit, fitted: loaded.fitted)
        #expect(restarted.venue.estimator.anchors == engine.venue.estimator.anchors)
    }

    @Test func topologyCheckRefusesOutOfRangeValues() throws {
        var files = TestVenue.files()
        files["gateways.csv"] = "id,x,y,level,rssi_offset,path_loss_exponent\ng0,0,0,L0,25,\ng1,20,0,L0,,6\n"
        #expect {
            try TestVenue.load(files)
        } throws: { error in
            let text = "\(error)"
            return text.contains("gateways.csv") && text.contains("rssi_offset") && text.contains("path_loss_exponent")
        }
    }
}

/// The region beacons' powers learned from what phones range: fitted on the housekeeping refit,
/// the planner's ranges from them, persisted across a restart.
@Suite struct RangedRadioEngineTests {
    /// Phones standing under each beacon of the corridor in turn, hearing the next beacons 5 m
    /// away in every other round and none farther: a radio far weaker than the declared −70 dBm
    /// (which would hear 5 m away in nine reports of ten, and 10 m away in half).
    static func feed(_ engine: CoordinatorEngine, topology: Topology, rounds: Int) throws {
        var report = 0
        for round in 0..<rounds {
            for index in 1..<topology.regions.count {
                report += 1
                var ranged = [RangedBeacon(uuid: TestVenue.regionUUID, major: 1, minor: UInt16(index - 1), rssi: -72)]
                for neighbour in [index - 1, index + 1] where round % 2 == 0 && neighbour >= 1 && neighbour < topology.regions.count {
                    ranged.append(RangedBeacon(uuid: TestVenue.regionUUID, major: 1, minor: UInt16(neighbour - 1), rssi: -94))
                }
                ranged.append(RangedBeacon(uuid: "00000000-0000-0000-0000-000000000000", major: 1, minor: 1, rssi: -60))  // not the venue's
                try engine.apply(
                    .report(client: "phone-\(report % 3)", ClientReport(ranged: ranged)), now: TestVenue.millis(Double(report)))
            }
        }
    }

    @Test func phonesRangingShrinksTheRangesThePlannerGoesByAndTheStoreKeepsThem() throws {
        let topology = try TestVenue.topology(regions: 12)
        let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
        try Self.feed(engine, topology: topology, rounds: 20)
        engine.recalibrate(now: TestVenue.millis(10_000))
        let fits = engine.calibrationSnapshot.ranged
        #expect(fits.count == topology.regions.count)
        let placed = fits.filter { $0.id != "venue" }
        #expect(placed.allSatisfy { $0.usable && $0.power < $0.declared - 5 }, "\(placed.map { ($0.id, $0.power, $0.usable) })")
        let planner = try #require(engine.venue.planner as? FrontierPlanner)
        for index in topology.regions.indices where topology.regions[index].position != nil {
            #expect(planner.detectionRanges[index] < topology.detectionRanges[index] * 0.7)
        }

        let store = try StateStore(path: ":memory:")
        #expect(try store.loadRangedRadio() == nil)
        try store.saveRangedRadio(fits, fitted: TestVenue.millis(10_000))
        let restarted = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20))
        restarted.restoreRanged(try #require(try store.loadRangedRadio()))
        let restored = try #require(restarted.venue.planner as? FrontierPlanner)
        #expect(restored.detectionRanges == planner.detectionRanges)
        #expect(restarted.venue.estimator.anchors == engine.venue.estimator.anchors)
    }
}
