import Coordinator
import Foundation
public import Planner
public import Topology
import WireProtocol

/// Gateways with mis-set gains, and whether self-calibration repairs them: tags walk a venue
/// heard by its gateways, which also hear the venue's region beacons, every window, and the
/// batches go through a ``CoordinatorEngine`` (decode, ingest, estimate, plan: the coordinator
/// without MQTT). Three runs on the same walks and the same noise:
///
/// - `calibrated`: true gains (0 dB), no self-calibration (the venue as configured);
/// - `mis-set`: every gateway's gain off by a seeded uniform error within ±`gainError` dB;
/// - `self-calibrated`: the same errors, the engine refitting from the region-beacon sightings
///   every `refitInterval` seconds.
///
/// Each reports how far the tags' estimates are from the walkers, every window once a tag has an
/// estimate (a tag is located, not planned); the last also each gateway's fitted offset against
/// its true gain error.
public struct GainCalibrationSimulation: Sendable {
    public struct Configuration: Sendable {
        public var tags: Int = 20
        /// Simulated seconds per run.
        public var duration: Double = 300
        public var seed: UInt64 = 1
        /// Gain errors are uniform in ± this many dB.
        public var gainError: Double = 8
        /// Seconds between gateway windows, and between refits.
        public var window: Double = 1
        public var refitInterval: Double = 60
        /// The radio of the tags (path loss with their advertised 1 m power, shadowing per reading).
        public var radio = RadioModel()
        /// Static (per gateway–beacon pair) shadowing of the fixed beacons, dB: multipath that
        /// does not average out over time.
        public var beaconShadowing: Double = 3
        /// Per-reading shadowing of a beacon advertisement, dB, and advertisements per window.
        public var beaconNoise: Double = 5
        public var beaconAdvertisements = 10
        /// Mounting height of the region beacons, metres (the estimator's assumption).
        public var beaconHeight: Double = 2.5
        public var calibration = CalibrationConfiguration()

        public init() {}
    }

    /// One run's figures: the tags' position error, metres, over every window of every tag with
    /// an estimate on the walker's level, and how many estimates were on another level.
    public struct Run: Sendable, Codable, Hashable {
        public var name: String
        public var samples: Int
        public var otherLevel: Int
        public var medianError: Double?
        public var p90Error: Double?
    }

    /// One gateway's true gain error and fitted offset.
    public struct Recovery: Sendable, Codable, Hashable {
        public var gateway: String
        public var gain: Double
        public var fitted: Double
        public var exponent: Double
        public var flags: [String]
        public var error: Double { fitted - gain }
    }

    public struct Report: Sendable, Codable {
        public var venue: String
        public var tags: Int
        public var seconds: Double
        public var gainError: Double
        public var runs: [Run]
        public var recovery: [Recovery]
        /// The largest |fitted − true| over gateways.
        public var worstOffsetError: Double? { recovery.map { abs($0.error) }.max() }

        public var text: String {
            var lines = [
                "self-calibration on \(venue): \(tags) tags, \(Int(seconds)) s, gateway gains off by up to ±\(gainError) dB (seeded)"
            ]
            lines.append("tag position error, metres (median / p90 over every window of every tag):")
            for run in runs {
                func metres(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-" }
                lines.append(
                    "  \(run.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(metres(run.medianError)) / \(metres(run.p90Error))"
                        + " (\(run.samples) samples, \(run.otherLevel) on another level)")
            }
            lines.append("gateway offsets after \(Int(seconds)) s (true gain error, fitted offset, difference, exponent):")
            for r in recovery {
                lines.append(
                    String(
                        format: "  %@ %+6.2f %+6.2f %+6.2f  n=%.2f %@", r.gateway.padding(toLength: 12, withPad: " ", startingAt: 0),
                        r.gain,
                        r.fitted, r.error, r.exponent, r.flags.joined(separator: ",")))
            }
            if let worst = worstOffsetError { lines.append(String(format: "worst offset error: %.2f dB", worst)) }
            return lines.joined(separator: "\n")
        }
    }

    public let topology: Topology
    public let configuration: Configuration

    public init(topology: Topology, configuration: Configuration = .init()) throws(SimulationError) {
        guard !topology.gateways.isEmpty else { throw .unsuitableTopology("'\(topology.name)' has no gateways") }
        self.topology = topology
        self.configuration = configuration
    }

    /// The seeded gain error of each gateway, dB.
    public var gains: [Double] {
        var random = SplitMix64(seed: SplitMix64.mix(configuration.seed &+ 0x6A1E))
        return topology.gateways.map { _ in (Double(random.next() >> 11) / Double(1 << 53) * 2 - 1) * configuration.gainError }
    }

    /// Runs the three scenarios.
    public func run() throws -> Report {
        let gains = self.gains
        let zero = [Double](repeating: 0, count: gains.count)
        let calibrated = try run(name: "calibrated", gains: zero, calibrate: false).run
        let misSet = try run(name: "mis-set", gains: gains, calibrate: false).run
        let (selfCalibrated, fit) = try run(name: "self-calibrated", gains: gains, calibrate: true)
        let recovery = topology.gateways.enumerated().map { g, gateway in
            let f = fit?.gateway(gateway.id)
            return Recovery(
                gateway: gateway.id, gain: gains[g], fitted: f?.offset ?? 0, exponent: f?.exponent ?? .nan, flags: f?.flags ?? ["no fit"])
        }
        return Report(
            venue: topology.name, tags: configuration.tags, seconds: configuration.duration, gainError: configuration.gainError,
            runs: [calibrated, misSet, selfCalibrated], recovery: recovery)
    }

    /// One scenario: returns its position errors and, when calibrating, the final fit.
    public func run(name: String, gains: [Double], calibrate: Bool) throws -> (run: Run, fit: RadioCalibration?) {
        let config = configuration
        let venue = try CoordinatorVenue(topology: topology, budget: topology.budget ?? 20)
        let topics = try Topics()
        let engine = CoordinatorEngine(venue: venue)
        var feed = GatewayFeed(engine: engine, topics: topics, gateways: topology.gateways.count)
        engine.configureCalibration(enabled: calibrate, interval: config.refitInterval, configuration: config.calibration)
        let graph = try WalkGraph(topology: topology)
        var walkers = (0..<config.tags).map { Walker(graph: graph, simulationSeed: config.seed, client: $0) }
        // Addressed noise: the same readings in every run. Static multipath per (gateway, beacon).
        let noise = CounterNoise(seed: SplitMix64.mix(config.seed &+ 0xC0FFEE))
        let multipath = CounterNoise(seed: SplitMix64.mix(config.seed &+ 0xBEAC))
        let beacons = topology.regions.enumerated().compactMap {
            index, region -> (index: Int, point: VenuePoint, identity: (String, UInt16, UInt16), power: Double)? in
            guard let position = region.position, let major = region.identity.major, let minor = region.identity.minor else { return nil }
            return (
                index, position, (region.identity.uuidString, major, minor), Double(region.measuredPower ?? topology.radio.measuredPower)
            )
        }
        let ids = (0..<config.tags).map { SimulatedTag(minor: UInt16(truncatingIfNeeded: $0)).client }
        let start: Int64 = 1_800_000_000_000
        let tick = 0.2
        var clock = 0.0
        var nextWindow = 0.0
        var windowNumber: UInt64 = 0
        var errors: [Double] = []
        var otherLevel = 0
        let levelIndex = Dictionary(uniqueKeysWithValues: topology.levels.enumerated().map { ($1.id, $0) })
        while clock <= config.duration {
            let now = start + Int64(clock * 1000)
            if clock >= nextWindow {
                nextWindow = clock + config.window
                windowNumber += 1
                for (g, gateway) in topology.gateways.enumerated() {
                    var sightings: [Sighting] = []
                    let height = gateway.height ?? 2.5
                    for (i, walker) in walkers.enumerated() {
                        let floors = (levelIndex[gateway.position.level] ?? 0) - (levelIndex[walker.position.level] ?? 0)
                        let d = Self.distance(gateway.position, walker.position, dz: height - 1)
                        guard
                            let rssi = config.radio.reading(
                                distance: d, floors: floors, standardNormal: noise.normal(windowNumber, UInt64(g), UInt64(i)))
                        else { continue }
                        let reading = Double(rssi) + gains[g]
                        sightings.append(
                            SimulatedTag(minor: UInt16(truncatingIfNeeded: i)).sighting(
                                rssi: reading.rounded(), rssiMax: Int(reading.rounded()), count: 5, txPower: -59))
                    }
                    for (b, beacon) in beacons.enumerated() where beacon.point.level == gateway.position.level {
                        let d = Self.distance(gateway.position, beacon.point, dz: height - config.beaconHeight)
                        let mean =
                            config.radio.pathLoss.expectedRSSI(atDistance: max(d, 0.1), referencePower: beacon.power) + config
                            .beaconShadowing * multipath.normal(UInt64(g), UInt64(b), 0)
                        let reading =
                            mean + config.beaconNoise / Double(config.beaconAdvertisements).squareRoot()
                            * noise.normal(windowNumber, UInt64(g), UInt64(1 << 32 + b))
                        guard reading >= config.radio.sensitivity else { continue }
                        let heard = (reading + gains[g]).rounded()
                        sightings.append(
                            Sighting(
                                format: "ibeacon", uuid: beacon.identity.0, major: beacon.identity.1, minor: beacon.identity.2,
                                address: String(format: "BE:AC:00:00:%02X:%02X", (b >> 8) & 0xFF, b & 0xFF), rssi: heard,
                                rssiMax: Int(heard),
                                count: config.beaconAdvertisements, txPower: Int(beacon.power), distance: nil))
                    }
                    guard let id = Identifier(validating: gateway.id) else { continue }
                    try feed.publish(
                        sightings, gateway: g, id: gateway.id, topic: topics.sightings(id),
                        start: Date(timeIntervalSince1970: Double(now) / 1000 - config.window),
                        end: Date(timeIntervalSince1970: Double(now) / 1000),
                        now: now)
                }
                engine.recalibrateIfDue(now: now)
                engine.flush(now: now)
                _ = engine.take()
                for (i, walker) in walkers.enumerated() {
                    guard let estimate = engine.snapshot(of: ids[i])?.position else { continue }
                    let error = walker.position.distance(to: VenuePoint(x: estimate.x, y: estimate.y, level: estimate.level))
                    if error.isFinite { errors.append(error) } else { otherLevel += 1 }
                }
            }
            clock += tick
            for i in walkers.indices { walkers[i].advance(by: tick) }
        }
        let fit = calibrate ? engine.recalibrate(now: start + Int64(config.duration * 1000)) : nil
        let run = Run(
            name: name, samples: errors.count, otherLevel: otherLevel, medianError: SimulationStatistics.median(errors),
            p90Error: SimulationStatistics.percentile(errors, 90))
        return (run, fit)
    }

    static func distance(_ a: VenuePoint, _ b: VenuePoint, dz: Double) -> Double {
        let dx = a.x - b.x
        let dy = a.y - b.y
        return (dx * dx + dy * dy + dz * dz).squareRoot()
    }
}
