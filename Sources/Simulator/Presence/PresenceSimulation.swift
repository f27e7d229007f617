import BeaconKit
import Coordinator
import Foundation
import Planner
public import Topology
import WireProtocol

/// Room and floor presence measured on simulated walks: clients walk a venue with rooms
/// (`areas.csv`) through the production coordinator engine, and every tick the room (and level)
/// it shows for each client is compared with the room the walker is truly in
/// (``PresenceScore``), beside the baseline "the room of the current estimate".
///
/// - **Tags** are heard by the venue's gateways: one reading per gateway per window (the tags'
///   ``Configuration/radio``, shadowing drawn per reading), one sightings batch per gateway and
///   window, as the agents publish them;
/// - **phones** run in the foreground: ``SimulatedPhone`` (RegionSync on the fake iOS) ranging the
///   region beacons through a ``PhoneRadio`` of the ``Configuration/family`` and reporting every
///   second; each applies the `regions` its report brings back one second later.
///
/// The shown room and level are what the engine publishes: its room and level enter/exit events
/// (the room filter, `RoomFilter`); the baseline is the room holding the engine's position of the
/// client (its estimate) at the same moment. The engine recalibrates as the coordinator's
/// housekeeping does, so phones' estimates go by the beacons' powers their ranging shows
/// (``Planner/RangedRadio``). The same seed gives the same report.
public struct PresenceSimulation: Sendable {
    /// Who walks.
    public enum Clients: String, Sendable, Hashable, Codable, CaseIterable {
        /// Tags heard by the gateways.
        case tags
        /// Phones in the foreground, ranging the region beacons and reporting every second.
        case phones
    }

    public struct Configuration: Sendable {
        public var clients: Int
        /// Simulated seconds per client.
        public var duration: Double
        public var seed: UInt64
        public var kind: Clients
        /// The phones' radios (phones only).
        public var family: PhoneFamily
        /// The tags' radio as the gateways hear it (tags only).
        public var radio: RadioModel
        /// Simulation step, and seconds between gateway windows (tags).
        public var tick: Double
        public var window: Double
        /// Seconds from a phone's report to its `regions` applied.
        public var latency: Double
        /// Seconds a walker stays at each region it reaches (``Walker/defaultPauses``).
        public var pauses: ClosedRange<Double>

        public init(
            clients: Int = 10, duration: Double = 900, seed: UInt64 = 1, kind: Clients = .tags, family: PhoneFamily = .ios,
            radio: RadioModel = RadioModel(), tick: Double = 0.25, window: Double = 1, latency: Double = 1,
            pauses: ClosedRange<Double> = Walker.defaultPauses
        ) {
            self.clients = clients
            self.duration = duration
            self.seed = seed
            self.kind = kind
            self.family = family
            self.radio = radio
            self.tick = tick
            self.window = window
            self.latency = latency
            self.pauses = pauses
        }
    }

    /// One way of choosing the shown room, scored.
    public struct Method: Sendable, Hashable, Codable {
        public var name: String
        public var room: PresenceScore
        public var level: PresenceScore
    }

    public struct Report: Sendable, Hashable, Codable {
        public var venue: String
        public var clients: Clients
        public var count: Int
        public var seconds: Double
        public var seed: UInt64
        /// Seconds each walker stayed at each region it reached (``Configuration/pauses``; `nil`: a
        /// recorded walk).
        public var pauses: ClosedRange<Double>?
        /// The coordinator's room filter, then the baseline.
        public var methods: [Method]
        /// Phones: what the coordinator learned of the beacons' powers from their ranging (its
        /// estimates go by a fitted power that departs from the declared one by 5 dB or more).
        public var learned: PhoneSimulation.LearnedRadio?
    }

    /// One tick of one client, for analysis outside (``run(trace:)``).
    public struct Sample: Sendable {
        public var client: Int
        public var time: Double
        public var truth: VenuePoint
        public var truthRoom: Int?
        /// The engine's estimate (nil before the first), its confidence radius, and its room.
        public var estimate: VenuePoint?
        public var confidence: Double?
        public var estimateRoom: Int?
        /// The room and level the engine shows.
        public var shownRoom: Int?
        public var shownLevel: String?
    }

    public let topology: Topology
    public let configuration: Configuration
    let graph: WalkGraph

    public init(topology: Topology, configuration: Configuration = Configuration()) throws(SimulationError) {
        guard !topology.areas.isEmpty else {
            throw .unsuitableTopology("'\(topology.name)' has no rooms (areas.csv): presence is the room a client is in")
        }
        if configuration.kind == .tags, topology.gateways.isEmpty {
            throw .unsuitableTopology("'\(topology.name)' has no gateways to hear tags")
        }
        if configuration.clients < 1 { throw .invalidParameter(name: "clients", reason: "must be at least 1") }
        if !(configuration.duration > 0) { throw .invalidParameter(name: "duration", reason: "must be positive") }
        if !(configuration.pauses.lowerBound >= 0) || !configuration.pauses.upperBound.isFinite {
            throw .invalidParameter(name: "pauses", reason: "must be finite seconds from 0")
        }
        self.topology = topology
        self.configuration = configuration
        self.graph = try WalkGraph(topology: topology)
    }

    /// Runs every client; `trace` sees every sample.
    public func run(trace: ((Sample) -> Void)? = nil) async throws -> Report {
        let venue = try CoordinatorVenue(topology: topology, budget: topology.budget ?? 20)
        let topics = try Topics()
        let engine = CoordinatorEngine(venue: venue)
        var feed = GatewayFeed(engine: engine, topics: topics, gateways: topology.gateways.count)
        let config = configuration
        var walkers = (0..<config.clients).map { Walker(graph: graph, simulationSeed: config.seed, client: $0, pauseRange: config.pauses) }
        let ids: [String] =
            config.kind == .tags
            ? (0..<config.clients).map { SimulatedTag(minor: UInt16(truncatingIfNeeded: $0)).client }
            : (0..<config.clients).map { "sim-phone-\($0)" }
        var phones: [SimulatedPhone] = []
        var radios: [PhoneRadio] = []
        // The region beacons' true powers, which phones hear (tags are heard by the gateways).
        let beaconRadio = config.kind == .phones ? BeaconRadio(topology: topology, seed: config.seed, family: config.family) : nil
        if let beaconRadio {
            for client in 0..<config.clients {
                let condition = config.family.draw(seed: config.seed, client: client)
                phones.append(
                    await SimulatedPhone(mode: .foreground, slots: 20, condition: condition, seed: config.seed, client: client))
                radios.append(PhoneRadio(radio: beaconRadio, condition: condition, client: client, tick: config.tick))
            }
        }
        let noise = CounterNoise(seed: SplitMix64.mix(config.seed &+ 0x7A65))
        let levelIndex = Dictionary(uniqueKeysWithValues: topology.levels.enumerated().map { ($1.id, $0) })
        let start: Int64 = 1_800_000_000_000
        var windowNumber: UInt64 = 0
        var nextWindow = 0.0
        var shown = [(room: Int?, level: String?)](repeating: (nil, nil), count: config.clients)
        let byID = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        let roomByID = Dictionary(uniqueKeysWithValues: topology.areas.enumerated().map { ($1.id, $0) })
        var filterRoom = (0..<config.clients).map { _ in PresenceScore.Recorder() }
        var filterLevel = filterRoom
        var baselineRoom = filterRoom
        var baselineLevel = filterRoom
        let ticks = Int((config.duration / config.tick).rounded(.down))

        /// Reads the engine's decisions: room and level events move what is shown; `regions` go to the phones.
        func take(now: Double) {
            for output in engine.take().outputs {
                switch output {
                case .event(let client, let event):
                    guard let index = byID[client] else { continue }
                    if let room = event.room {
                        if event.type == .enter {
                            shown[index].room = roomByID[room]
                        } else if shown[index].room == roomByID[room] {
                            shown[index].room = nil
                        }
                    }
                    if let level = event.level {
                        if event.type == .enter {
                            shown[index].level = level
                        } else if shown[index].level == level {
                            shown[index].level = nil
                        }
                    }
                case .regions(let client, let message):
                    if let index = byID[client], config.kind == .phones { phones[index].deliver(message, at: now + config.latency) }
                case .clearRegions: break
                }
            }
        }

        for tick in 0...ticks {
            await Task.yield()
            let now = Double(tick) * config.tick
            let millis = start + Int64((now * 1000).rounded())
            if tick > 0 { for i in walkers.indices { walkers[i].advance(by: config.tick) } }
            engine.recalibrateIfDue(now: millis)  // as the coordinator's housekeeping tick does
            switch config.kind {
            case .tags:
                if now + 1e-9 >= nextWindow {
                    nextWindow = now + config.window
                    windowNumber += 1
                    for (g, gateway) in topology.gateways.enumerated() {
                        var sightings: [Sighting] = []
                        for (i, walker) in walkers.enumerated() {
                            let floors = (levelIndex[gateway.position.level] ?? 0) - (levelIndex[walker.position.level] ?? 0)
                            let (dx, dy, dz) = (
                                gateway.position.x - walker.position.x, gateway.position.y - walker.position.y, (gateway.height ?? 2.5) - 1
                            )
                            let d = (dx * dx + dy * dy + dz * dz).squareRoot()
                            guard
                                let rssi = config.radio.reading(
                                    distance: d, floors: floors, standardNormal: noise.normal(windowNumber, UInt64(g), UInt64(i)))
                            else { continue }
                            sightings.append(
                                SimulatedTag(minor: UInt16(truncatingIfNeeded: i)).sighting(
                                    rssi: Double(rssi), rssiMax: rssi, count: 5, txPower: -59))
                        }
                        guard let id = Identifier(validating: gateway.id) else { continue }
                        let end = Double(millis) / 1000
                        try feed.publish(
                            sightings, gateway: g, id: gateway.id, topic: topics.sightings(id),
                            start: Date(timeIntervalSince1970: end - config.window), end: Date(timeIntervalSince1970: end), now: millis)
                    }
                    engine.flush(now: millis)
                    take(now: now)
                }
            case .phones:
                for i in phones.indices {
                    let heard = radios[i].readings(at: walkers[i].position, tick: tick)
                    await phones[i].detect(heard.compactMap { topology.regions[$0.region].identity.beacon }, at: now)
                    _ = await phones[i].applyDue(at: now)
                    let ranged = heard.map { reading in
                        let identity = topology.regions[reading.region].identity
                        return RangedBeacon(
                            uuid: identity.uuidString, major: identity.major ?? 0, minor: identity.minor ?? 0, rssi: reading.rssi)
                    }
                    if let report = await phones[i].report(at: now, ranged: ranged) {
                        try? engine.apply(.report(client: ids[i], report), now: millis)
                        engine.flush(now: millis)
                        take(now: now)
                    }
                }
            }
            for i in walkers.indices {
                let truth = walkers[i].position
                let truthRoom = topology.room(at: truth)
                let truthLevel = walkers[i].climb == nil ? levelIndex[truth.level] : nil
                let position = engine.snapshot(of: ids[i])?.position
                let estimate = position.map { VenuePoint(x: $0.x, y: $0.y, level: $0.level) }
                let estimateRoom = estimate.flatMap { topology.room(at: $0) }
                filterRoom[i].record(time: now, truth: truthRoom, shown: shown[i].room)
                // A venue of one level has no level events: the level shown is the one there is, once located.
                let shownLevel = topology.levels.count == 1 ? (estimate == nil ? nil : 0) : shown[i].level.flatMap { levelIndex[$0] }
                filterLevel[i].record(time: now, truth: truthLevel, shown: shownLevel)
                baselineRoom[i].record(time: now, truth: truthRoom, shown: estimateRoom)
                baselineLevel[i].record(time: now, truth: truthLevel, shown: estimate.flatMap { levelIndex[$0.level] })
                trace?(
                    Sample(
                        client: i, time: now, truth: truth, truthRoom: truthRoom, estimate: estimate, confidence: position?.confidence,
                        estimateRoom: estimateRoom, shownRoom: shown[i].room, shownLevel: shown[i].level))
            }
        }
        func merged(_ recorders: [PresenceScore.Recorder]) -> PresenceScore {
            var total = PresenceScore()
            for var recorder in recorders { total.merge(recorder.finish()) }
            return total
        }
        return Report(
            venue: topology.name, clients: config.kind, count: config.clients, seconds: config.duration, seed: config.seed,
            pauses: config.pauses,
            methods: [
                Method(name: "room-filter", room: merged(filterRoom), level: merged(filterLevel)),
                Method(name: "estimate-room", room: merged(baselineRoom), level: merged(baselineLevel)),
            ],
            learned: beaconRadio.map { PhoneSimulation.LearnedRadio(fits: engine.calibrationSnapshot.ranged, truth: $0.powers) })
    }
}
