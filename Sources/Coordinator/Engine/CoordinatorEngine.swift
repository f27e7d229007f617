import BeaconKit
import Foundation
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
        /// Observations kept per client (one per anchor: the newest, and of those equally new the
        /// strongest), so the most anchors one estimate uses; a venue's `anchors-per-estimate`
        /// (``Topology/PositionTuning``) overrides it.
        public var maximumObservations: Int = 8
        /// Clients not heard from for this long (milliseconds) expire; their retained `regions` is cleared.
        public var idleTimeout: Int64 = 15 * 60 * 1000
        /// How long a capacity inferred from a phone holding fewer regions than planned is
        /// respected (milliseconds) before the full budget is planned again, in case iOS now
        /// accepts more (see ``CoordinatorEngine/reconcile(_:held:now:)``).
        public var capacityRetry: Int64 = 10 * 60 * 1000
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
        /// However fast a tag's evidence advances, it is estimated at most this often by the
        /// coordinator's clock (milliseconds). A stream faster than real time that the coordinator
        /// keeps up with (a spool replayed after an outage, a benchmark) is not a backlog, so only
        /// this bounds it: a flush decides at most ``CoordinatorCore/flushChunk`` tags and the next
        /// chunk follows at once, so without it a tag whose evidence had moved on a window was
        /// estimated again each time the chunks came round to it (the figures: docs/coordinator.md,
        /// fifteenth session). Below the core's flush interval (200 ms), so a simulation at 5x real
        /// time (a window every 200 ms, give or take) is still estimated every window.
        public var tagEstimateSpacing: Int64 = 150

        public init(
            budget: Int = 20, absenceWindows: Int = 3, replanDistance: Double = 1.0, movedEventDistance: Double = 3.0,
            observationHorizon: Int64 = 3_000, idleTimeout: Int64 = 15 * 60 * 1000
        ) {
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
    public internal(set) var venue: CoordinatorVenue
    /// The planner's scratch memory (this engine is used from one task).
    var search: WalkingDistanceSearch
    /// Running totals.
    public internal(set) var counters = IngestCounters()

    /// Every client, by index, id and advertised identity.
    var table = ClientTable()
    /// Per gateway: the clients it covers, whether it is online, its last batch.
    var gateways: GatewayCoverage
    var dirtyClients: [Int32] = []
    var outputs: [CoordinatorOutput] = []
    var seenStamp: [UInt32] = []
    var stamp: UInt32 = 0
    var removedClients: [String] = []
    /// Clients whose `needsPersist` may be set, for ``takeChangedClients()``.
    var persistPending: [Int32] = []
    let decoder = SightingsBatchDecoder()
    var scratchBatch = DecodedSightingsBatch()
    /// Per sighting of the batch being applied: its client's index (-1: a region beacon).
    var scratchIndices: [Int32] = []
    var scratchRecall = RecalledWindow()
    var scratchDeparted: [Int32] = []
    let reportDecoder = WireCoding.makeDecoder()
    /// Whether clients whose estimate or presence changed are noted in `touched` (for the live
    /// map's stream and Home Assistant, see ``takeTouched()``); off while nobody watches, so it
    /// costs nothing then.
    public var tracksTouched = false
    var touched: [Int32] = []
    /// Self-calibration from region-beacon sightings (see CoordinatorEngine+Calibration.swift).
    public internal(set) var calibration = CoordinatorCalibration()

    /// An engine for `venue`, resuming `restored` clients (from the state store).
    public init(topics: Topics, venue: CoordinatorVenue, configuration: Configuration = Configuration(), restored: [StoredClient] = []) {
        self.topics = topics
        self.configuration = configuration
        self.venue = venue
        self.search = WalkingDistanceSearch(topology: venue.topology)
        self.gateways = GatewayCoverage(count: venue.topology.gateways.count)
        scratchBatch.sightings.reserveCapacity(256)
        for stored in restored { restore(stored) }
    }

    // MARK: - Queries

    /// Clients known now.
    public var clientCount: Int { table.byID.count }

    /// A client's state as `/api/clients/{id}` shows it.
    public func snapshot(of id: String) -> ClientSnapshot? {
        guard let index = table.byID[id], let record = table.records[Int(index)] else { return nil }
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
            guard table.records[i]?.needsPersist == true else { continue }
            table.records[i]!.needsPersist = false
            table.records[i]!.persistedSeen = table.records[i]!.lastSeen
            changed.append(stored(table.records[i]!))
        }
        persistPending.removeAll(keepingCapacity: true)
        defer { removedClients.removeAll() }
        return (changed, removedClients)
    }

    func stored(_ record: ClientRecord) -> StoredClient {
        StoredClient(
            id: record.id, version: record.version, regions: record.regions.map { venue.id(ofRegion: $0) }, position: position(record),
            lastSeen: record.lastSeen, isPhone: record.isPhone, beacon: record.beacon?.storageText,
            budget: record.budget == ClientRecord.unstated ? 0 : Int(record.budget))
    }

    // MARK: - Deciding

    /// Estimates, plans and decides events for every client touched since the last flush;
    /// the decisions are queued for ``takeOutputs()``.
    ///
    /// - Parameters:
    ///   - backlogged: more sightings are queued behind those applied (see
    ///     ``Configuration/tagEstimateInterval``).
    ///   - phonesOnly: decide for phones only (a phone's report waits for its answer); every other
    ///     client stays dirty for the next flush.
    ///   - limit: decide for at most this many clients other than phones; the rest stay dirty.
    ///     Gateways' windows arrive together, so without a bound one flush may estimate
    ///     thousands of tags while a phone's report waits behind it. Once `limit` are decided the
    ///     flush stops: the clients it has not looked at stay dirty ahead of those it found
    ///     waiting, so the next flush goes on from there (see below).
    /// - Returns: whether clients that could be decided now were left for the next flush (or not
    ///   looked at: call again at once).
    ///
    /// The dirty list is scanned as a circle: a client found waiting goes to its back. A flush
    /// that looked at every dirty client before deciding its `limit` re-read every waiting tag
    /// for each chunk; with thousands of tags waiting under a backlog that was a tenth of the
    /// pinned end-to-end coordinator's core (`flush`'s own time and the exclusivity checks of its
    /// reads, `perf record`), for chunks of 64.
    @discardableResult
    public func flush(now: Int64, backlogged: Bool = false, phonesOnly: Bool = false, limit: Int = .max) -> Bool {
        let dirty = dirtyClients
        dirtyClients.removeAll(keepingCapacity: true)
        let (interval, spacing) = (configuration.tagEstimateInterval, configuration.tagEstimateSpacing)
        var decided = 0
        var unexamined = dirty.endIndex
        for position in dirty.indices {
            if decided >= limit {
                unexamined = position
                break
            }
            let index = dirty[position]
            // Checked in place: reading the record out copies it.
            guard
                let (isPhone, waits) = table.records[Int(index)]?.flushCheck(
                    now: now, interval: interval, spacing: spacing, backlogged: backlogged)
            else {
                continue
            }
            if waits || (phonesOnly && !isPhone) {
                dirtyClients.append(index)  // stays dirty; its evidence keeps accumulating
                continue
            }
            if !isPhone { decided += 1 }
            // Taken out of its slot while it is updated, so that the record is the only owner of
            // its arrays: a copy beside the slot's would copy them on their first write.
            guard var record = table.records[Int(index)].take() else { continue }
            record.dirty = false
            update(&record, now: now)
            if record.needsPersist { persistPending.append(index) }
            if tracksTouched { touched.append(index) }
            table.records[Int(index)] = record
        }
        guard unexamined < dirty.endIndex else { return false }
        dirtyClients.insert(contentsOf: dirty[unexamined...], at: 0)
        return true
    }

    func update(_ record: inout ClientRecord, now: Int64) {
        let venue = self.venue
        // Location: fresh radio observations and the phone's region events since the last estimate.
        var fresh: [PositionObservation] = []
        var freshCount = 0
        var evidenceTime = record.location.map { Self.milliseconds($0.time) } ?? Int64.min
        if !record.observations.isEmpty {
            let newest = record.observations.reduce(Int64.min) { max($0, $1.time) }
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
                fresh.append(
                    PositionObservation(
                        anchor: Int(anchor), rssi: Double(o.rssi), count: max(1, Int(o.count)),
                        txPower: o.txPower == .min ? nil : Double(o.txPower)))
                evidenceTime = max(evidenceTime, o.time)
            }
        }
        if freshCount > 0 || !record.regionEvidence.isEmpty {
            record.estimatedAt = now
            // A phone's region events, each once, at its time: the filter carries it forward (its
            // prior spreads at walking speed), as it does ranged beacons. A tag has none: its
            // `inside` is only where its last estimate put it.
            let constraints = regionConstraints(record, fresh: freshCount > 0)
            record.regionEvidence = []
            evidenceTime = max(evidenceTime, record.regionEvidenceTime)
            record.regionEvidenceTime = .min
            if evidenceTime == Int64.min { evidenceTime = now }
            if freshCount > 0 || !constraints.isEmpty,
                let estimate = venue.estimator.update(
                    record.location, observations: fresh, constraints: constraints, at: Self.date(evidenceTime))
            {
                counters.estimates += 1
                record.location = estimate.state
                record.confidence = estimate.confidence
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

    /// The phone's pending region events as the estimator's constraints, each a disk around the
    /// region's beacon, never its radius: an enter means iOS detected the beacon, so the phone is
    /// within the beacon's reach (``Topology/Topology/reachRanges``: where a lucky reading
    /// already detects it); an exit that it has not for about 30 s, so it is beyond the detection
    /// range (``Topology/Topology/detectionRanges``). A region placed on a level without a position
    /// (a per-level wildcard) puts the phone on that level.
    ///
    /// Enters count only when the phone ranged nothing fresh (`fresh`). Its readings measure what
    /// an enter only bounds, and an enter is not always news: `RegionSync` reports a region iOS
    /// says is *inside* when asked for its state (after adding it) as an enter too, and iOS says
    /// inside until 30 s after the last detection, while the phone may have walked 40 m on. Held
    /// against the readings such disks pulled estimates about: measured with
    /// `simulate --offline` (10 suspended phones × 15 min, seed 1), mall 95 % of arrivals
    /// covered at 913 adds and removes per 100 m with them, 100 % at 301 without.
    /// An exit alone places nothing (the phone is anywhere outside a disk), so exits count only
    /// beside other evidence: fresh readings, an enter, or a previous estimate recent enough to be
    /// the filter's prior.
    func regionConstraints(_ record: ClientRecord, fresh: Bool) -> [PositionConstraint] {
        let topology = venue.topology
        /// The disk within which the region's beacon is detected.
        func disk(_ kind: PositionConstraint.Kind, _ index: Int) -> PositionConstraint? {
            let region = topology.regions[index]
            guard let centre = region.position else { return nil }
            let range = max(kind == .inside ? topology.reachRanges[index] : topology.detectionRanges[index], region.radius)
            return PositionConstraint(kind, x: centre.x, y: centre.y, level: centre.level, radius: range)
        }
        var constraints: [PositionConstraint] = []
        var entered = false
        for evidence in record.regionEvidence where evidence >= 0 && !fresh {
            let region = topology.regions[Int(evidence)]
            if let inside = disk(.inside, Int(evidence)) {
                constraints.append(inside)
                entered = true
            } else if let level = region.level, !region.isPinned {
                constraints.append(PositionConstraint(.inside, x: 0, y: 0, level: level, radius: .infinity))
            }
        }
        let prior =
            record.location.map { location in
                Self.stateTime(record.regionEvidenceTime) - location.time <= venue.estimator.configuration.maximumAge
            } ?? false
        guard fresh || entered || prior else { return constraints }
        for evidence in record.regionEvidence where evidence < 0 {
            if let outside = disk(.outside, Int(-(evidence + 1))) { constraints.append(outside) }
        }
        return constraints
    }

    /// How long a ranged beacon counts as heard, milliseconds: the planner's window, read once.
    static let heardWindow = Int64(FrontierPlannerConfiguration().heardWindow * 1000)

    /// The regions whose beacons the phone ranged in its latest report's last seconds
    /// (``FrontierPlannerConfiguration/heardWindow``), while that report is recent: *inside* for
    /// iOS as soon as they are monitored, so no use for waking it. Measured on the report's own
    /// clock (a phone's clock may be off; a simulation's runs faster).
    func heard(by record: ClientRecord, now: Int64) -> [Int] {
        let window = Self.heardWindow
        guard record.isPhone, now - record.lastSeen <= window, let newest = record.heard.lazy.map(\.time).max() else { return [] }
        return record.heard.filter { newest - $0.time < window }.map { Int($0.region) }
    }

    /// Plans `record` at `point` (its confidence is the planner's uncertainty: regions it may really be in come
    /// first) and publishes when the set changed (or a reconciliation needs it).
    func plan(_ record: inout ClientRecord, at point: VenuePoint, now: Int64) {
        let budget = slots(for: &record, now: now)
        let reconcile = record.reconcileFrom
        let previous = reconcile ?? record.regions
        let regions: [Int32]
        let validFor: Double?
        // The plan's diff from `previous` is the one published: regions added, in slot order, and removed, in `previous`'s order.
        var added: [PlannedRegion] = []
        var removed: [Int] = []
        if let location = try? venue.topology.snap(point) {
            let plan = venue.planner.plan(
                PlanRequest(
                    location: location, monitored: previous.map(Int.init), inside: record.inside.map(Int.init),
                    heard: heard(by: record, now: now), stateUnknown: record.stateUnknown.map(Int.init), budget: budget,
                    uncertainty: record.confidence, now: Self.date(now)),
                using: search)
            regions = plan.regions.map { Int32($0.region) }
            added = plan.added
            removed = plan.removed
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
        // A record's first set is `initial` whatever else changed with it (its budget, its inside set).
        let reason = record.version == 0 ? .initial : record.reason ?? .moved
        record.reason = nil
        // A region the plan does not monitor can never fire an exit: it leaves the phone's inside set.
        if record.isPhone, !record.inside.isEmpty {
            let planned = Set(regions)
            record.inside.removeAll { !planned.contains($0) }
        }
        // The set, not its slot order, is what the phone monitors: a reordering alone is no change.
        // A record's first set is published even when empty (a budget of 0): the phone learns it.
        let changed = Set(regions) != Set(record.regions) || !record.vanished.isEmpty || record.version == 0
        guard changed || reconcile != nil else { return }
        if reconcile != nil { counters.reconciliations += 1 }
        let next = Set(regions)
        let add = added.map { venue.regionRefs[$0.region] }
        let remove = record.vanished + removed.map { venue.topology.regions[$0].id }
        record.vanished = []
        record.version = Self.nextVersion(after: record.version, now: now, handedOver: record.handedOver)
        record.handedOver = false
        record.regions = regions
        // Regions this set adds report their state from now on; those it drops are no concern.
        if !record.stateUnknown.isEmpty { record.stateUnknown.removeAll { !next.contains($0) } }
        record.missedReports = false
        // What this version answers: a reconciliation from the set the phone held, or nothing.
        record.answered = reconcile.map { $0.sorted() }
        record.needsPersist = true
        let message = RegionsMessage(
            version: record.version, budget: budget, regions: regions.map { venue.regionRefs[Int($0)] }, add: add, remove: remove,
            position: position(record), reason: reason.rawValue,
            validFor: validFor.map { ($0 * 100).rounded() / 100 }, time: Date(timeIntervalSince1970: Double(now) / 1000))
        outputs.append(.regions(client: record.id, message))
        counters.regionsPublished += 1
    }

    /// The slots to plan for `record`: the coordinator's budget, capped by the one the phone
    /// stated (0 is a budget: no slots) and by the capacity it showed, until that is to be retried.
    func slots(for record: inout ClientRecord, now: Int64) -> Int {
        var slots = statedSlots(record.budget)
        if record.capacity != ClientRecord.unstated {
            if now - record.capacitySince > configuration.capacityRetry {
                record.capacity = ClientRecord.unstated
            } else {
                slots = min(slots, Int(record.capacity))
            }
        }
        return slots
    }

    /// The coordinator's budget capped by the one a phone stated (``ClientRecord/unstated``: none).
    func statedSlots(_ stated: UInt8) -> Int {
        stated == ClientRecord.unstated ? configuration.budget : min(configuration.budget, Int(stated))
    }

    /// The version after `version` (0: the client's first under this record).
    ///
    /// A phone's `version` must never go back or repeat (RegionSync ignores a version not greater
    /// than the one it applied), also when the coordinator lost the client's history: after the
    /// record expired (`idleTimeout`), after a restart without `--state`, or with the state file
    /// lost. So a record without history starts at the wall clock in milliseconds since 1970
    /// (`now`), and each change adds 1. A later record of the same client starts above every version
    /// an earlier one published as long as that one published less than one version per millisecond
    /// on average, and the clock did not go back. A phone takes any jump as "converge to the whole
    /// set"; only a step back would be ignored.
    static func nextVersion(after version: UInt64, now: Int64) -> UInt64 {
        version == 0 ? UInt64(max(1, now)) : version + 1
    }

    func emit(_ type: ClientEvent.Kind, region: Int32?, record: ClientRecord, time: Int64, evidence: String) {
        emit(type, region: region, client: record.id, position: position(record), time: time, evidence: evidence)
    }

    func emit(_ type: ClientEvent.Kind, region: Int32?, client: String, position: Position?, time: Int64, evidence: String) {
        let event = ClientEvent(
            client: client, type: type, region: region.map { venue.id(ofRegion: $0) }, position: position,
            time: Date(timeIntervalSince1970: Double(time) / 1000), evidence: evidence)
        outputs.append(.event(client: client, event))
        counters.eventsPublished += 1
    }

    /// Expires clients idle longer than the configured timeout: they are forgotten and their
    /// retained `regions` cleared.
    public func expireIdle(now: Int64) {
        for i in table.records.indices {
            guard let record = table.records[i], now - record.lastSeen > configuration.idleTimeout else { continue }
            remove(Int32(i))
            counters.expired += 1
            outputs.append(.clearRegions(client: record.id))
        }
    }

    func remove(_ index: Int32) {
        guard let record = table.remove(index) else { return }
        gateways.forget(index)
        removedClients.append(record.id)
    }

}
