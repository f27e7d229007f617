public import BeaconKit
public import Foundation
import Planner
import Topology
public import WireProtocol

/// The coordinator's logic without any I/O: messages in, decisions out.
///
/// It routes and validates every topic and payload, keeps per-client state (version, set,
/// position, evidence), estimates locations, plans sets, decides enter / exit / moved events and
/// absence, and queues ``CoordinatorOutput`` values for the service to publish. It is owned by
/// one task (``CoordinatorCore`` wraps it in an actor) and takes the time as an argument, so the
/// same inputs always give the same outputs.
public final class CoordinatorEngine {
    /// Tunables; the defaults suit a venue with 1 s gateway windows.
    public struct Configuration: Sendable {
        /// Slots per client when the phone does not ask for fewer (at most 20 on iOS).
        public var budget: Int = 20
        /// Consecutive windows of a healthy gateway that covered a client without hearing it
        /// before that gateway stops vouching for it; when none vouches any more, the client has left.
        public var absenceWindows: Int = 3
        /// Re-plan when the estimate moved this far (metres) from where the last plan was made.
        public var replanDistance: Double = 1.0
        /// Publish a `moved` event when the estimate moved this far from the last one.
        public var movedEventDistance: Double = 3.0
        /// Observations older than this (milliseconds) no longer count.
        public var observationHorizon: Int64 = 3_000
        /// Observations kept per client.
        public var maximumObservations: Int = 6
        /// Clients not heard from for this long (milliseconds) expire; their retained `regions` is cleared.
        public var idleTimeout: Int64 = 15 * 60 * 1000
        /// Write `lastSeen` to the store at most this often per client (milliseconds).
        public var lastSeenPersistInterval: Int64 = 60_000
        /// A tag (a client only gateways hear) is re-estimated once its evidence reaches this much
        /// (milliseconds, the agents' window) past what its last estimate used, or this long after
        /// that estimate by the coordinator's clock. Gateways report in windows, so a tag heard by
        /// several gateways gets several batches a window: they wait and one estimate uses them all.
        /// While sightings are backlogged (``IngestQueue/sightingsBacklogged(olderThan:now:)``:
        /// after an outage or under overload) only the clock counts: the estimate waiting batches
        /// would supersede is skipped, so the estimator's cost per tag stays bounded however fast sightings arrive.
        /// Phones' reports, re-plans forced by events, the topology or reconciliation never wait.
        public var tagEstimateInterval: Int64 = 1_000

        public init(budget: Int = 20, absenceWindows: Int = 3, replanDistance: Double = 1.0, movedEventDistance: Double = 3.0,
                    observationHorizon: Int64 = 3_000, idleTimeout: Int64 = 15 * 60 * 1000) {
            self.budget = budget
            self.absenceWindows = absenceWindows
            self.replanDistance = replanDistance
            self.movedEventDistance = movedEventDistance
            self.observationHorizon = observationHorizon
            self.idleTimeout = idleTimeout
        }
    }

    public let topics: Topics
    public let configuration: Configuration
    /// The topology with its planner and estimator.
    public private(set) var venue: CoordinatorVenue
    /// The planner's scratch memory (this engine is used from one task).
    private var search: WalkingDistanceSearch
    /// Running totals.
    public internal(set) var counters = IngestCounters()

    var clients: [ClientRecord?] = []
    var freeSlots: [Int32] = []
    var clientByID: [String: Int32] = [:]
    var clientByBeacon: [BeaconIdentity: Int32] = [:]
    /// Per gateway index: clients its recent windows contained, with their consecutive misses.
    var coverage: [CoverageTable]
    var gatewayOnline: [Bool]
    var lastSeq: [String: UInt64] = [:]
    var dirtyClients: [Int32] = []
    var outputs: [CoordinatorOutput] = []
    var seenStamp: [UInt32] = []
    var stamp: UInt32 = 0
    var removedClients: [String] = []
    /// Clients whose `needsPersist` may be set, for ``takeChangedClients()``.
    var persistPending: [Int32] = []
    private let decoder = SightingsBatchDecoder()
    private var scratchBatch = DecodedSightingsBatch()
    /// Per sighting of the batch being applied: its client's index (-1: a region beacon).
    private var scratchIndices: [Int32] = []
    private var scratchDeparted: [Int32] = []
    private let reportDecoder = WireCoding.makeDecoder()

    /// An engine for `venue`, resuming `restored` clients (from the state store).
    public init(topics: Topics, venue: CoordinatorVenue, configuration: Configuration = Configuration(), restored: [StoredClient] = []) {
        self.topics = topics
        self.configuration = configuration
        self.venue = venue
        self.search = WalkingDistanceSearch(topology: venue.topology)
        self.coverage = Array(repeating: CoverageTable(), count: venue.topology.gateways.count)
        self.gatewayOnline = Array(repeating: true, count: venue.topology.gateways.count)
        scratchBatch.sightings.reserveCapacity(256)
        for stored in restored { restore(stored) }
    }

    // MARK: - Queries

    /// Clients known now.
    public var clientCount: Int { clientByID.count }

    /// A client's state as `/api/clients/{id}` shows it.
    public func snapshot(of id: String) -> ClientSnapshot? {
        guard let index = clientByID[id], let record = clients[Int(index)] else { return nil }
        return snapshot(record)
    }

    func snapshot(_ record: ClientRecord) -> ClientSnapshot {
        ClientSnapshot(
            id: record.id, version: record.version, regions: record.regions.map { venue.id(ofRegion: $0) },
            inside: record.inside.map { venue.id(ofRegion: $0) }, position: position(record),
            lastSeen: Date(timeIntervalSince1970: Double(record.lastSeen) / 1000), kind: record.isPhone ? "phone" : "tag",
            present: record.present, advertising: record.beacon?.clientIdentifier)
    }

    /// Takes the outputs decided since the last call, in order.
    public func takeOutputs() -> [CoordinatorOutput] {
        defer { outputs.removeAll(keepingCapacity: true) }
        return outputs
    }

    /// Takes the state of every client changed since the last call (to write before publishing),
    /// and the ids of clients removed.
    public func takeChangedClients() -> (changed: [StoredClient], removed: [String]) {
        var changed: [StoredClient] = []
        for index in persistPending {
            let i = Int(index)
            guard clients[i]?.needsPersist == true else { continue }
            clients[i]!.needsPersist = false
            clients[i]!.persistedSeen = clients[i]!.lastSeen
            changed.append(stored(clients[i]!))
        }
        persistPending.removeAll(keepingCapacity: true)
        defer { removedClients.removeAll() }
        return (changed, removedClients)
    }

    func stored(_ record: ClientRecord) -> StoredClient {
        StoredClient(id: record.id, version: record.version, regions: record.regions.map { venue.id(ofRegion: $0) }, position: position(record),
                     lastSeen: record.lastSeen, isPhone: record.isPhone, beacon: record.beacon?.storageText, budget: Int(record.budget))
    }

    // MARK: - Ingest

    /// Routes one message by its topic, validates it and applies it. Throws the ``WireError``
    /// that rejected it (already counted); nothing rejected changes any state.
    public func handle(topic: String, payload: UnsafeRawBufferPointer, now: Int64) throws(WireError) {
        try handle(PreparedMessage(routing: topic, payloadBytes: payload.count, topics: topics), topic: topic, payload: payload, now: now)
    }

    /// Applies a message prepared off the engine's task (see ``PreparedMessage``); `payload` is
    /// read only when the message is `.routed`. Throws the ``WireError`` that rejected it (counted).
    public func handle(_ prepared: PreparedMessage, topic: String, payload: UnsafeRawBufferPointer, now: Int64) throws(WireError) {
        let route: Topics.Route
        switch prepared {
        case .sightings(let gateway, let batch):
            applySightings(gateway: gateway, batch: batch, now: now)
            return
        case .rejected(let error, let rejection):
            switch rejection {
            case .invalidTopic: counters.invalidTopics += 1
            case .oversizedPayload: counters.oversizedPayloads += 1
            case .invalidPayload: counters.invalidPayloads += 1
            }
            throw error
        case .routed(let routed):
            route = routed
        }
        switch route {
        case .sightings(let gateway):
            do {
                try decoder.decode(payload, topic: topic, gateway: gateway.rawValue, into: &scratchBatch)
            } catch {
                counters.invalidPayloads += 1
                throw error
            }
            applySightings(gateway: gateway.rawValue, batch: scratchBatch, now: now)
        case .clientReport(let client):
            let report: ClientReport
            do {
                report = try decodeReport(payload, topic: topic)
            } catch {
                counters.invalidPayloads += 1
                throw error
            }
            applyReport(client: client.rawValue, report: report, now: now)
        case .gatewayStatus(let gateway):
            if payload.isEmpty { return }  // a cleared retained status
            let status: GatewayStatus
            do {
                status = try WireCoding.decode(GatewayStatus.self, from: payload, topic: topic)
            } catch {
                counters.invalidPayloads += 1
                throw error
            }
            applyGatewayStatus(gateway: gateway.rawValue, status: status)
        case .clientRegions, .clientEvents, .coordinatorStatus:
            // Our own outputs (or another coordinator's): not input.
            return
        }
    }

    /// Decodes and validates a phone's report.
    func decodeReport(_ payload: UnsafeRawBufferPointer, topic: String) throws(WireError) -> ClientReport {
        try ClientReport.decode(payload, topic: topic, decoder: reportDecoder)
    }

    /// Applies one gateway window. Sightings of region beacons are counted and skipped; every other
    /// identity is a mobile client (or the phone that declared it as its advertising identity).
    public func applySightings(gateway: String, batch: DecodedSightingsBatch, now: Int64) {
        counters.sightingsBatches += 1
        counters.sightings += UInt64(batch.sightings.count)
        if let last = lastSeq[gateway] {
            if batch.seq <= last {
                counters.duplicateBatches += 1
                return
            }
            if batch.seq > last + 1 { counters.missedBatches += batch.seq - last - 1 }
        }
        lastSeq[gateway] = batch.seq
        guard let g = venue.topology.gatewayIndex(id: gateway) else {
            counters.unknownGatewayBatches += 1
            return
        }
        let gatewayIndex = Int32(g)
        if !gatewayOnline[g] { gatewayOnline[g] = true }
        stamp &+= 1
        if stamp == 0 {
            for i in seenStamp.indices { seenStamp[i] = 0 }
            stamp = 1
        }
        let time = batch.endMilliseconds
        let sightings = batch.sightings
        // First resolve every sighting to its client (creating new ones), so the second pass can
        // work on the records in place without the array growing under it.
        let venue = self.venue
        var indices = scratchIndices
        scratchIndices = []
        indices.removeAll(keepingCapacity: true)
        var regionBeacons: UInt64 = 0
        let regionByBeacon = venue.regionByBeacon
        let checkRegions = !regionByBeacon.isEmpty
        let regionIDs = venue.regionBeaconIDs
        // Known clients are looked up in a local (moved out, not copied) to spare an exclusivity
        // check per sighting; a new client goes through clientIndex(forBeacon:) with it put back.
        var byBeacon = clientByBeacon
        clientByBeacon = [:]
        for i in sightings.indices {
            let key = sightings[i].key
            if checkRegions, regionIDs.mayContain(key), regionByBeacon[key] != nil {
                regionBeacons += 1
                indices.append(-1)
                continue
            }
            if let index = byBeacon[key] {
                indices.append(index)
                continue
            }
            clientByBeacon = byBeacon
            byBeacon = [:]
            indices.append(clientIndex(forBeacon: key, now: now))
            byBeacon = clientByBeacon
            clientByBeacon = [:]
        }
        clientByBeacon = byBeacon
        counters.regionBeaconSightings += regionBeacons
        CoordinatorEngine.observe(sightings, clients: indices, gateway: gatewayIndex, time: time, now: now, stamp: stamp,
                                  configuration: configuration, records: &clients, seen: &seenStamp, coverage: &coverage[g],
                                  dirty: &dirtyClients)
        scratchIndices = indices
        // Clients this gateway covered but did not hear in this window.
        var departedCandidates = scratchDeparted
        scratchDeparted = []
        departedCandidates.removeAll(keepingCapacity: true)
        seenStamp.withUnsafeBufferPointer { seen in
            coverage[g].advanceMisses(seen: seen, stamp: stamp, limit: configuration.absenceWindows, departed: &departedCandidates)
        }
        if !departedCandidates.isEmpty {
            var departures = 0
            var exits: [Int32] = []
            CoordinatorEngine.uncover(departedCandidates, coverage: &coverage[g], records: &clients, persistPending: &persistPending,
                                      departures: &departures, exits: &exits)
            counters.departures += UInt64(departures)
            // Clients that left from inside regions: their exits, in the order they left.
            for client in exits { emitAbsenceExits(client, now: time) }
        }
        scratchDeparted = departedCandidates
    }

    /// Gateway coverage of `candidates` ended (too many windows without them): each one that no
    /// gateway covers any more has left: every healthy gateway that covered it missed it for several windows. Done in place; those inside
    /// regions are appended to `exits` for their exit events.
    private static func uncover(_ candidates: [Int32], coverage: inout CoverageTable, records: inout [ClientRecord?], persistPending: inout [Int32],
                                departures: inout Int, exits: inout [Int32]) {
        records.withUnsafeMutableBufferPointer { records in
            for client in candidates {
                coverage.removeValue(forKey: client)
                // A mutating call through `?.` works in place; reading a field through it copies the record.
                guard let outcome = records[Int(client)]?.loseCover(), outcome != .stays else { continue }
                departures += 1
                if outcome == .leftFromInside { exits.append(client) }
                persistPending.append(client)
            }
        }
    }

    /// Emits the absence exits of a client that just left and forgets its regions.
    private func emitAbsenceExits(_ index: Int32, now: Int64) {
        let i = Int(index)
        guard clients[i] != nil else { return }
        let id = clients[i]!.id, position = position(clients[i]!), inside = clients[i]!.inside
        for region in inside {
            emit(.exit, region: region, client: id, position: position, time: now, evidence: "absence")
        }
        clients[i]!.inside = []
    }

    /// The per-sighting part of ``applySightings(gateway:batch:now:)``, on the engine's arrays
    /// passed in (one access each per batch) and with every record updated in place.
    private static func observe(_ sightings: [DecodedSighting], clients indices: [Int32], gateway: Int32, time: Int64, now: Int64, stamp: UInt32,
                                configuration: Configuration, records: inout [ClientRecord?], seen: inout [UInt32],
                                coverage: inout CoverageTable, dirty: inout [Int32]) {
        let maximum = configuration.maximumObservations
        let horizon = configuration.observationHorizon
        let persistInterval = configuration.lastSeenPersistInterval
        let seenAt = max(time, now)
        sightings.withUnsafeBufferPointer { sightings in
            indices.withUnsafeBufferPointer { indices in
                seen.withUnsafeMutableBufferPointer { seen in
                    records.withUnsafeMutableBufferPointer { records in
                        for n in 0..<sightings.count {
                            let index = indices[n]
                            if index < 0 { continue }
                            let i = Int(index)
                            let sighting = sightings[n]
                            seen[i] = stamp
                            let observation = CompactObservation(anchor: gateway, rssi: Float(sighting.rssi),
                                                                 txPower: sighting.txPower.map { Int8(clamping: $0) } ?? .min,
                                                                 count: UInt16(clamping: sighting.count), time: time)
                            let wasCovered = coverage.updateValue(0, forKey: index) != nil
                            if records[i]!.absorb(observation, seenAt: seenAt, covered: wasCovered, maximum: maximum, horizon: horizon,
                                                  persistInterval: persistInterval) {
                                dirty.append(index)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Applies a phone's report: its budget, advertising identity, region events, ranged beacons
    /// and, when it differs from the last plan, its monitored list (reconciliation).
    public func applyReport(client: String, report: ClientReport, now: Int64) {
        counters.reports += 1
        let index = clientIndex(forID: client, now: now)
        var record = clients[Int(index)]!
        record.isPhone = true
        record.lastSeen = max(record.lastSeen, now)
        record.needsPersist = true
        if !record.present {
            record.present = true
            record.forcePlan = true
        }
        if let budget = report.budget, UInt8(budget) != record.budget {
            record.budget = UInt8(budget)
            record.forcePlan = true
            record.reason = .budget
        }
        clients[Int(index)] = record
        if let advertising = report.advertising, let key = advertising.identity {
            adopt(beacon: key, for: index, now: now)
        }
        record = clients[Int(index)]!
        let time = report.time.map { Int64($0.timeIntervalSince1970 * 1000) } ?? now
        // Region events are the phone's own truth about inside and outside.
        for event in report.events {
            guard let region = venue.topology.regionIndex(id: event.region).map(Int32.init) else {
                counters.unknownReferences += 1
                continue
            }
            switch event.type {
            case .enter:
                if !record.inside.contains(region) {
                    record.inside.append(region)
                    record.forcePlan = true
                    emit(.enter, region: region, record: record, time: time, evidence: "report")
                }
                // Entering a region is strong evidence of where the client is.
                let entered = venue.topology.regions[Int(region)]
                if let centre = entered.position, let level = venue.estimator.levelIndex(of: centre.level),
                   record.location.map({ venue.point(of: $0).distance(to: centre) > entered.radius }) ?? true {
                    let confidence = max(1, entered.radius)
                    record.location = PositionState(x: centre.x, y: centre.y, variance: confidence * confidence, time: Self.stateTime(time), level: level)
                    record.confidence = confidence
                }
            case .exit:
                if let at = record.inside.firstIndex(of: region) {
                    record.inside.remove(at: at)
                    record.forcePlan = true
                    emit(.exit, region: region, record: record, time: time, evidence: "report")
                }
            }
        }
        for beacon in report.ranged {
            guard let key = BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor),
                  let region = venue.regionByBeacon[key] else {
                counters.unknownReferences += 1
                continue
            }
            guard beacon.rssi != 0, venue.topology.regions[Int(region)].position != nil else { continue }  // unmeasured, or no place
            record.observe(CompactObservation(anchor: -(region + 1), rssi: Float(beacon.rssi), time: time),
                           maximum: configuration.maximumObservations, horizon: configuration.observationHorizon)
        }
        // Reconciliation: what iOS monitors is the truth. A list sent before the phone applied our
        // latest version is stale and says nothing.
        if let monitored = report.monitored, record.version > 0, report.version.map({ $0 == record.version }) ?? true {
            var have: [Int32] = []
            for id in monitored {
                if let region = venue.topology.regionIndex(id: id) { have.append(Int32(region)) } else { counters.unknownReferences += 1 }
            }
            if Set(have) != Set(record.regions) || have.count != monitored.count {
                record.reconcileFrom = have
                record.reason = .reconcile
            }
        }
        if !record.dirty {
            record.dirty = true
            dirtyClients.append(index)
        }
        clients[Int(index)] = record
    }

    /// Applies a gateway's status: an offline gateway stops vouching for anyone, without making
    /// anyone leave (silence from a dead gateway is not evidence).
    public func applyGatewayStatus(gateway: String, status: GatewayStatus) {
        counters.gatewayStatuses += 1
        guard let g = venue.topology.gatewayIndex(id: gateway) else { return }
        switch status.state {
        case .online:
            gatewayOnline[g] = true
        case .offline:
            gatewayOnline[g] = false
            for client in coverage[g].clients {
                guard clients[Int(client)] != nil else { continue }
                let covers = clients[Int(client)]!.coverCount
                clients[Int(client)]!.coverCount = covers > 0 ? covers - 1 : 0
            }
            coverage[g].removeAll()
        }
    }

    // MARK: - Deciding

    /// Estimates, plans and decides events for every client touched since the last flush;
    /// the decisions are queued for ``takeOutputs()``.
    ///
    /// - Parameter backlogged: more sightings are queued behind those applied (see
    ///   ``Configuration/tagEstimateInterval``).
    public func flush(now: Int64, backlogged: Bool = false) {
        let dirty = dirtyClients
        dirtyClients.removeAll(keepingCapacity: true)
        let interval = configuration.tagEstimateInterval
        for index in dirty {
            // Checked in place: reading the record out copies it.
            guard let waits = clients[Int(index)]?.waitsForEstimate(now: now, interval: interval, backlogged: backlogged) else { continue }
            if waits {
                dirtyClients.append(index)  // stays dirty; its evidence keeps accumulating
                continue
            }
            guard var record = clients[Int(index)] else { continue }
            record.dirty = false
            update(&record, now: now)
            if record.needsPersist { persistPending.append(index) }
            clients[Int(index)] = record
        }
    }

    private func update(_ record: inout ClientRecord, now: Int64) {
        let venue = self.venue
        // Location.
        if !record.observations.isEmpty {
            let newest = record.observations.reduce(Int64.min) { max($0, $1.time) }
            var fresh: [PositionObservation] = []
            var freshCount = 0
            var time = record.location.map { Self.milliseconds($0.time) } ?? Int64.min
            for i in record.observations.indices {
                let o = record.observations[i]
                guard newest - o.time <= configuration.observationHorizon else { continue }
                let anchor: Int32
                if o.anchor >= 0 {
                    guard Int(o.anchor) < venue.gatewayAnchor.count else { continue }
                    anchor = venue.gatewayAnchor[Int(o.anchor)]
                } else {
                    let region = Int(-(o.anchor + 1))
                    guard region < venue.regionAnchor.count, venue.topology.regions[region].position != nil else { continue }
                    anchor = venue.regionAnchor[region]
                }
                guard !o.consumed else { continue }
                record.observations[i].consumed = true
                freshCount += 1
                guard anchor >= 0 else { continue }
                fresh.append(PositionObservation(anchor: Int(anchor), rssi: Double(o.rssi), count: max(1, Int(o.count)),
                                                 txPower: o.txPower == .min ? nil : Double(o.txPower)))
                time = max(time, o.time)
            }
            if freshCount > 0 {
                record.estimatedAt = now
                // A phone's `inside` is evidence (its own enter and exit events). A tag's is only
                // where its last estimate put it: fed back as a constraint, it would hold the tag
                // inside the first region it was placed in, however far the gateways hear it walk.
                var constraints: [PositionConstraint] = []
                if record.isPhone {
                    for region in record.inside {
                        let inside = venue.topology.regions[Int(region)]
                        guard let centre = inside.position else { continue }
                        constraints.append(PositionConstraint(.inside, x: centre.x, y: centre.y, level: centre.level, radius: inside.radius))
                    }
                }
                if time == Int64.min { time = now }
                if let estimate = venue.estimator.update(record.location, observations: fresh, constraints: constraints, at: Self.date(time)) {
                    record.location = estimate.state
                    record.confidence = estimate.confidence
                }
            }
        }
        guard let location = record.location else { return }
        let point = venue.point(of: location)
        let time = record.lastSeen > 0 ? record.lastSeen : now
        // Tags: inside and outside follow the estimate.
        if !record.isPhone {
            let inside = venue.regionsContaining(point)
            if inside != record.inside {
                for region in record.inside where !inside.contains(region) {
                    emit(.exit, region: region, record: record, time: time, evidence: "sightings")
                }
                for region in inside where !record.inside.contains(region) {
                    emit(.enter, region: region, record: record, time: time, evidence: "sightings")
                }
                if Set(inside) != Set(record.inside) { record.forcePlan = true }
                record.inside = inside
            }
        }
        if record.movedAt.map({ $0.distance(to: point) >= configuration.movedEventDistance }) ?? true {
            record.movedAt = point
            emit(.moved, region: nil, record: record, time: time, evidence: record.isPhone ? "report" : "sightings")
        }
        let moved = record.plannedAt.map { $0.distance(to: point) >= configuration.replanDistance } ?? true
        guard moved || record.forcePlan || record.reconcileFrom != nil else { return }
        plan(&record, at: point, now: now)
    }

    /// Plans `record` at `point` (its confidence is the planner's uncertainty: regions it may really be in come
    /// first) and publishes when the set changed (or a reconciliation needs it).
    private func plan(_ record: inout ClientRecord, at point: VenuePoint, now: Int64) {
        let budget = record.budget > 0 ? min(Int(record.budget), configuration.budget) : configuration.budget
        let reconcile = record.reconcileFrom
        let previous = reconcile ?? record.regions
        let regions: [Int32]
        let validFor: Double?
        if let location = try? venue.topology.snap(point) {
            let plan = venue.planner.plan(
                PlanRequest(location: location, monitored: previous.map { venue.id(ofRegion: $0) }, inside: record.inside.map { venue.id(ofRegion: $0) },
                            budget: budget, uncertainty: record.confidence, now: Self.date(now)),
                using: search)
            regions = plan.regions.map { Int32($0.region) }
            validFor = plan.validFor.isFinite ? plan.validFor : nil
        } else {
            // No walkable graph on that level: keep what the client has.
            regions = previous
            validFor = 0
        }
        counters.plans += 1
        record.plannedAt = point
        record.forcePlan = false
        record.reconcileFrom = nil
        let reason = record.reason ?? (record.version == 0 ? .initial : .moved)
        record.reason = nil
        // The set, not its slot order, is what the phone monitors: a reordering alone is no change.
        let changed = Set(regions) != Set(record.regions) || !record.vanished.isEmpty
        guard changed || reconcile != nil else { return }
        if reconcile != nil { counters.reconciliations += 1 }
        let base = Set(previous)
        let next = Set(regions)
        let add = regions.filter { !base.contains($0) }.map { venue.regionRefs[Int($0)] }
        let remove = record.vanished + previous.filter { !next.contains($0) }.map { venue.id(ofRegion: $0) }
        record.vanished = []
        record.version += 1
        record.regions = regions
        record.needsPersist = true
        let message = RegionsMessage(
            version: record.version, budget: budget, regions: regions.map { venue.regionRefs[Int($0)] }, add: add, remove: remove,
            position: position(record), reason: reason.rawValue,
            validFor: validFor.map { ($0 * 100).rounded() / 100 }, time: Date(timeIntervalSince1970: Double(now) / 1000))
        outputs.append(.regions(client: record.id, message))
        counters.regionsPublished += 1
    }

    private func emit(_ type: ClientEvent.Kind, region: Int32?, record: ClientRecord, time: Int64, evidence: String) {
        emit(type, region: region, client: record.id, position: position(record), time: time, evidence: evidence)
    }

    private func emit(_ type: ClientEvent.Kind, region: Int32?, client: String, position: Position?, time: Int64, evidence: String) {
        let event = ClientEvent(
            client: client, type: type, region: region.map { venue.id(ofRegion: $0) }, position: position,
            time: Date(timeIntervalSince1970: Double(time) / 1000), evidence: evidence)
        outputs.append(.event(client: client, event))
        counters.eventsPublished += 1
    }

    /// Expires clients idle longer than the configured timeout: they are forgotten and their
    /// retained `regions` cleared.
    public func expireIdle(now: Int64) {
        for i in clients.indices {
            guard let record = clients[i], now - record.lastSeen > configuration.idleTimeout else { continue }
            remove(Int32(i))
            counters.expired += 1
            outputs.append(.clearRegions(client: record.id))
        }
    }

    private func remove(_ index: Int32) {
        guard let record = clients[Int(index)] else { return }
        clientByID[record.id] = nil
        if let beacon = record.beacon, clientByBeacon[beacon] == index { clientByBeacon[beacon] = nil }
        for g in coverage.indices { coverage[g].removeValue(forKey: index) }
        clients[Int(index)] = nil
        freeSlots.append(index)
        removedClients.append(record.id)
    }

    /// Replaces the venue (a topology reload): every client's set is re-expressed by region id in
    /// the new topology and re-planned; changes are published with reason `topology`.
    public func replaceVenue(_ newVenue: CoordinatorVenue, now: Int64) {
        let old = venue.topology, oldLevels = venue.estimator.levels
        venue = newVenue
        search = WalkingDistanceSearch(topology: newVenue.topology)
        let topology = newVenue.topology
        var newCoverage = Array(repeating: CoverageTable(), count: topology.gateways.count)
        for (g, gateway) in old.gateways.enumerated() {
            if let n = topology.gatewayIndex(id: gateway.id) { newCoverage[n] = coverage[g] }
        }
        coverage = newCoverage
        gatewayOnline = Array(repeating: true, count: topology.gateways.count)
        func remap(_ indices: [Int32]) -> [Int32] {
            indices.compactMap { topology.regionIndex(id: old.regions[Int($0)].id).map(Int32.init) }
        }
        for i in clients.indices {
            guard var record = clients[i] else { continue }
            let mapped = remap(record.regions)
            record.vanished += record.regions.map { old.regions[Int($0)].id }.filter { topology.regionIndex(id: $0) == nil }
            record.regions = mapped
            record.inside = remap(record.inside)
            record.observations = record.observations.compactMap { o in
                if o.anchor >= 0 {
                    guard let n = topology.gatewayIndex(id: old.gateways[Int(o.anchor)].id) else { return nil }
                    var moved = o
                    moved.anchor = Int32(n)
                    return moved
                }
                guard let n = topology.regionIndex(id: old.regions[Int(-(o.anchor + 1))].id) else { return nil }
                var moved = o
                moved.anchor = -(Int32(n) + 1)
                return moved
            }
            if let location = record.location, Int(location.level) < oldLevels.count {
                if let n = newVenue.estimator.levelIndex(of: oldLevels[Int(location.level)]) {
                    record.location?.level = n
                } else {
                    record.location = nil
                }
            }
            record.forcePlan = true
            record.reason = .topology
            if !record.dirty {
                record.dirty = true
                dirtyClients.append(Int32(i))
            }
            clients[i] = record
        }
        flush(now: now)
    }

    // MARK: - Clients

    private func clientIndex(forID id: String, now: Int64) -> Int32 {
        if let index = clientByID[id] { return index }
        var record = ClientRecord(id: id)
        record.lastSeen = now
        return insert(record)
    }

    @inline(__always)
    private func clientIndex(forBeacon key: BeaconIdentity, now: Int64) -> Int32 {
        if let index = clientByBeacon[key] { return index }
        let id = key.clientIdentifier
        if let index = clientByID[id] {
            clientByBeacon[key] = index
            return index
        }
        var record = ClientRecord(id: id)
        record.beacon = key
        record.lastSeen = now
        let index = insert(record)
        clientByBeacon[key] = index
        return index
    }

    private func insert(_ record: ClientRecord) -> Int32 {
        let index: Int32
        if let free = freeSlots.popLast() {
            index = free
            clients[Int(index)] = record
        } else {
            index = Int32(clients.count)
            clients.append(record)
            seenStamp.append(0)
        }
        clientByID[record.id] = index
        return index
    }

    /// A phone declared `key` as the identity it advertises: sightings of it now locate the phone.
    /// A tag record created earlier from those sightings is merged into the phone and forgotten;
    /// a phone not yet located starts where the tag was estimated (the tag's evidence is already
    /// used, so without it the phone would wait for the gateways' next window to be planned).
    private func adopt(beacon key: BeaconIdentity, for index: Int32, now: Int64) {
        if let existing = clientByBeacon[key], existing != index, let tag = clients[Int(existing)], !tag.isPhone {
            clients[Int(index)]!.observations.append(contentsOf: tag.observations)
            if clients[Int(index)]!.location == nil, let location = tag.location {
                clients[Int(index)]!.location = location
                clients[Int(index)]!.confidence = tag.confidence
                clients[Int(index)]!.estimatedAt = tag.estimatedAt
            }
            for g in coverage.indices {
                if let misses = coverage[g].removeValue(forKey: existing) {
                    if coverage[g].updateValue(misses, forKey: index) == nil { clients[Int(index)]!.coverCount &+= 1 }
                }
            }
            remove(existing)
            outputs.append(.clearRegions(client: tag.id))
        }
        if let old = clients[Int(index)]!.beacon, old != key, clientByBeacon[old] == index { clientByBeacon[old] = nil }
        clients[Int(index)]!.beacon = key
        clientByBeacon[key] = index
    }

    private func restore(_ stored: StoredClient) {
        var record = ClientRecord(id: stored.id)
        record.version = stored.version
        record.regions = stored.regions.compactMap { venue.topology.regionIndex(id: $0).map(Int32.init) }
        record.vanished = stored.regions.filter { venue.topology.regionIndex(id: $0) == nil }
        if !record.vanished.isEmpty { record.forcePlan = true; record.reason = .topology }
        record.lastSeen = stored.lastSeen
        record.persistedSeen = stored.lastSeen
        record.isPhone = stored.isPhone
        record.budget = UInt8(clamping: stored.budget)
        if let position = stored.position, let level = venue.estimator.levelIndex(of: position.level) {
            let point = VenuePoint(x: position.x, y: position.y, level: position.level)
            let confidence = position.confidence ?? 5
            record.location = PositionState(x: point.x, y: point.y, variance: confidence * confidence, time: Self.stateTime(stored.lastSeen), level: level)
            record.confidence = confidence
            record.plannedAt = point
            record.movedAt = point
        }
        let index = insert(record)
        if let text = stored.beacon, let key = BeaconIdentity(storageText: text) {
            clients[Int(index)]!.beacon = key
            clientByBeacon[key] = index
        }
        if record.forcePlan {
            clients[Int(index)]!.dirty = true
            dirtyClients.append(index)
        }
    }

    /// Where the coordinator believes the client is, as the wire says it.
    func position(_ record: ClientRecord) -> Position? {
        guard let location = record.location else { return nil }
        return Position(x: (location.x * 100).rounded() / 100, y: (location.y * 100).rounded() / 100, level: venue.level(of: location),
                        confidence: (record.confidence * 100).rounded() / 100)
    }

    /// Milliseconds since 1970 as the estimator's clock (seconds since the reference date), and back.
    @inline(__always) static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    @inline(__always) static func stateTime(_ milliseconds: Int64) -> Double { date(milliseconds).timeIntervalSinceReferenceDate }
    @inline(__always) static func milliseconds(_ stateTime: Double) -> Int64 {
        Int64((Date(timeIntervalSinceReferenceDate: stateTime).timeIntervalSince1970 * 1000).rounded())
    }
}

extension ClientRecord {
    enum CoverOutcome { case stays, left, leftFromInside }

    /// Whether this dirty record is a tag whose only news is sightings that can wait for a later
    /// flush (see ``CoordinatorEngine/Configuration/tagEstimateInterval``).
    @inline(__always)
    func waitsForEstimate(now: Int64, interval: Int64, backlogged: Bool) -> Bool {
        guard !isPhone, !forcePlan, reconcileFrom == nil, reason == nil, let location, estimatedAt != .min,
              now >= estimatedAt, now - estimatedAt < interval else { return false }
        if backlogged { return true }
        var newest = Int64.min
        for observation in observations where observation.time > newest { newest = observation.time }
        let estimated = CoordinatorEngine.milliseconds(location.time)
        return newest != .min && newest >= estimated && newest - estimated < interval
    }

    /// One gateway stopped covering this client; when none covers it any more it has left (its
    /// `inside` is kept for the caller's exit events).
    @inline(__always)
    mutating func loseCover() -> CoverOutcome {
        coverCount = coverCount > 0 ? coverCount - 1 : 0
        guard coverCount == 0, present else { return .stays }
        let wasInside = !inside.isEmpty
        leave(keepingInside: true)
        return wasInside ? .leftFromInside : .left
    }

    /// The client left (absence): not present, no evidence kept. `inside` is emptied unless the
    /// caller still has exit events to emit from it.
    @inline(__always)
    mutating func leave(keepingInside: Bool) {
        if !keepingInside { inside = [] }
        present = false
        observations.removeAll(keepingCapacity: true)
        needsPersist = true
    }

    /// One sighting of this client: keeps the observation and updates when it was seen, whether a
    /// new gateway covers it and its presence. Returns whether the record just became dirty.
    @inline(__always)
    mutating func absorb(_ observation: CompactObservation, seenAt: Int64, covered: Bool, maximum: Int, horizon: Int64, persistInterval: Int64) -> Bool {
        observe(observation, maximum: maximum, horizon: horizon)
        if lastSeen < seenAt { lastSeen = seenAt }
        if !covered { coverCount &+= 1 }
        var becameDirty = false
        if !dirty {
            dirty = true
            becameDirty = true
        }
        if !present {
            present = true
            forcePlan = true
        }
        if seenAt - persistedSeen > persistInterval { needsPersist = true }
        return becameDirty
    }

    /// Keeps the newest observation per anchor, drops those past the horizon, keeps at most `maximum`.
    @inline(__always)
    mutating func observe(_ observation: CompactObservation, maximum: Int, horizon: Int64) {
        if let at = observations.firstIndex(where: { $0.anchor == observation.anchor }) {
            if observations[at].time <= observation.time { observations[at] = observation }
        } else {
            observations.append(observation)
        }
        if observations.count > 1 {
            if observations.contains(where: { observation.time - $0.time > horizon }) {
                observations.removeAll { observation.time - $0.time > horizon }
            }
            if observations.count > maximum {
                observations.sort { $0.time > $1.time }
                observations.removeLast(observations.count - maximum)
            }
        }
    }
}

/// A client as `/api/clients/{id}` shows it.
public struct ClientSnapshot: Codable, Sendable, Equatable {
    public var id: String
    public var version: UInt64
    public var regions: [String]
    public var inside: [String]
    public var position: Position?
    public var lastSeen: Date
    /// `phone` (it reports) or `tag` (only heard by gateways).
    public var kind: String
    public var present: Bool
    public var advertising: String?
}

/// The distinct 16-byte ids (`high`, `low`, kind) among a set of beacon keys, when there are few
/// (a venue's region beacons usually share one UUID): a key whose id is not among them cannot be
/// in the set, so the hashed lookup can be skipped. With many ids it answers "maybe" to everything.
struct BeaconIDFilter: Sendable {
    private var ids: [(high: UInt64, low: UInt64, kind: BeaconIdentity.Kind)] = []
    private var everything = false

    init(_ keys: some Sequence<BeaconIdentity>) {
        for key in keys where !ids.contains(where: { $0.high == key.high && $0.low == key.low && $0.kind == key.kind }) {
            ids.append((key.high, key.low, key.kind))
            if ids.count > 8 {
                everything = true
                ids = []
                return
            }
        }
    }

    /// `false` only when no key of the set has `key`'s id.
    @inline(__always)
    func mayContain(_ key: BeaconIdentity) -> Bool {
        if everything { return true }
        for id in ids where id.high == key.high && id.low == key.low && id.kind == key.kind { return true }
        return false
    }
}
