import BeaconKit
public import Foundation
public import Planner
public import Topology
public import WireProtocol

/// `beaconfleet calibrate`'s offline fit: recorded sightings batches (JSON Lines: one batch per
/// line as published on `P/v1/gateways/{gw}/sightings`, either the payload alone, which then must
/// name its `gateway`, or `TOPIC PAYLOAD` as `mosquitto_sub -v` prints it) fed into the same
/// sliding memory and fit the coordinator runs, against a topology's gateways and region beacons.
public struct RecordedCalibration: Sendable {
    public let topology: Topology
    public var configuration: CalibrationConfiguration
    var window: CalibrationWindow
    let regionByBeacon: [BeaconIdentity: Int]
    let gatewayIndex: [String: Int]
    /// Batches read, sightings of region beacons used, batches of gateways the topology lacks.
    public private(set) var batches = 0
    public private(set) var regionSightings = 0
    public private(set) var unknownGatewayBatches = 0
    /// The newest batch end seen, seconds since 1970.
    public private(set) var latest = -Double.infinity

    public init(topology: Topology, configuration: CalibrationConfiguration = .init()) {
        self.topology = topology
        self.configuration = configuration
        self.window = CalibrationWindow(halfLife: configuration.halfLife)
        var byBeacon: [BeaconIdentity: Int] = [:]
        for (index, region) in topology.regions.enumerated() {
            if let key = region.identity.beacon, byBeacon[key] == nil { byBeacon[key] = index }
        }
        self.regionByBeacon = byBeacon
        self.gatewayIndex = Dictionary(topology.gateways.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Reads one recording; an unreadable line throws ``SimulationError/malformed(file:line:reason:)``.
    public mutating func read(file url: URL) throws(SimulationError) {
        let text = try TetamDataset.readText(url)
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            var topicGateway: String? = nil
            var json = Substring(line)
            if !line.hasPrefix("{") {
                guard let space = line.firstIndex(of: " ") else {
                    throw .malformed(file: url.path, line: number + 1, reason: "expected a sightings batch (JSON) or 'TOPIC PAYLOAD'")
                }
                let topic = line[..<space].split(separator: "/")
                guard topic.count >= 3, topic.last == "sightings" else {
                    throw .malformed(file: url.path, line: number + 1, reason: "topic '\(line[..<space])' is not …/gateways/GW/sightings")
                }
                topicGateway = String(topic[topic.count - 2])
                json = line[line.index(after: space)...]
            }
            let batch: SightingsBatch
            do {
                batch = try Array(json.utf8).withUnsafeBytes {
                    try WireCoding.decode(SightingsBatch.self, from: $0, topic: url.lastPathComponent)
                }
            } catch {
                throw .malformed(file: url.path, line: number + 1, reason: "not a sightings batch: \(error)")
            }
            guard let gateway = batch.gateway ?? topicGateway else {
                throw .malformed(file: url.path, line: number + 1, reason: "the batch names no gateway (and no topic does)")
            }
            add(batch, gateway: gateway)
        }
    }

    /// Adds one batch heard by `gateway`.
    public mutating func add(_ batch: SightingsBatch, gateway: String) {
        batches += 1
        guard let g = gatewayIndex[gateway] else {
            unknownGatewayBatches += 1
            return
        }
        let time = batch.end.timeIntervalSince1970
        latest = max(latest, time)
        for sighting in batch.sightings {
            guard let uuid = sighting.uuid, let major = sighting.major, let minor = sighting.minor,
                let key = BeaconIdentity(uuid: uuid, major: major, minor: minor), let region = regionByBeacon[key]
            else { continue }
            regionSightings += 1
            window.add(gateway: Int32(g), beacon: Int32(region), rssi: sighting.rssi, count: sighting.count, time: time)
        }
    }

    /// The fit as of the newest batch.
    public func fit() -> RadioCalibration {
        RadioCalibration.fit(topology: topology, pairs: window.snapshot(at: latest.isFinite ? latest : 0), configuration: configuration)
    }
}

extension RadioCalibration {
    /// A table per gateway (offset, exponent, residual spread, beacons, readings, flags) and the
    /// flagged beacons.
    public var text: String {
        var lines = ["gateway        offset dB  exponent  spread dB  beacons  readings  flags"]
        for g in gateways {
            lines.append(
                String(
                    format: "%@ %+8.2f  %8.2f  %9.2f  %7d  %8.0f  %@", g.id.padding(toLength: 14, withPad: " ", startingAt: 0), g.offset,
                    g.exponent, g.spread, g.beacons, g.readings, (g.usable ? g.flags : g.flags + ["not used"]).joined(separator: ",")))
        }
        let flagged = beacons.filter { $0.flags.contains("moved") }
        lines.append("beacons fitted: \(beacons.count), pairs used: \(pairs)")
        for beacon in flagged {
            lines.append(String(format: "  moved? %@ (spread %.1f dB over %d gateways)", beacon.id, beacon.spread, beacon.gateways))
        }
        return lines.joined(separator: "\n")
    }
}
