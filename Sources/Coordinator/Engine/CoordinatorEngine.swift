import BeaconKit
import Planner
import Topology
public import WireProtocol

/// The coordinator's logic without any I/O: messages in, decisions out.
///
/// It applies every message read (``InboundPayload``, through ``apply(_:now:)``), keeps per-client
/// state (version, set, position, evidence), estimates locations, plans sets, decides enter / exit /
/// moved events and absence, and hands its decisions over (``take()``) for the service to persist
/// and publish. It is owned by one task (``CoordinatorCore`` wraps it in an actor) and takes the
/// time as an argument (milliseconds since 1970), so the same inputs always give the same outputs.
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
        /// estimated again each time the chunks came round to it. Below the core's flush interval (200 ms), so a simulation at 5x real
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
    /// The clients to decide at the next flush.
    var dirty = DirtyQueue()
    /// What was decided since the last ``take()``.
    var outbox = Outbox()
    /// The ingest path's reusable memory.
    var scratch = IngestScratch()
    /// Self-calibration from region-beacon sightings (see CoordinatorEngine+Calibration.swift).
    public internal(set) var calibration = CoordinatorCalibration()

    /// An engine for `venue`, resuming `restored` clients (from the state store).
    public init(venue: CoordinatorVenue, configuration: Configuration = Configuration(), restored: [StoredClient] = []) {
        self.configuration = configuration
        self.venue = venue
        self.search = WalkingDistanceSearch(topology: venue.topology)
        self.gateways = GatewayCoverage(count: venue.topology.gateways.count)
        for stored in restored { restore(stored) }
    }

    /// Whether clients whose estimate or presence changed are noted (``CoordinatorDecisions/touched``,
    /// for the live map's stream and Home Assistant); off while nobody watches, so it costs nothing then.
    public var tracksTouched: Bool {
        get { outbox.tracksTouched }
        set { outbox.tracksTouched = newValue }
    }

    // MARK: - Queries

    /// Clients known now.
    public var clientCount: Int { table.count }

    /// Clients whose last report said iOS cannot wake them (``ClientRecord/wakeability`` `.no`).
    public var unwakeablePhones: Int { counters.unwakeablePhones }

    /// The ids of every client known now.
    public var clientIDs: [String] { Array(table.ids) }

    /// A client's state as `/api/clients/{id}` shows it.
    public func snapshot(of id: String) -> ClientSnapshot? {
        table[id: id].map(snapshot)
    }

    func snapshot(_ record: ClientRecord) -> ClientSnapshot {
        ClientSnapshot(
            id: record.id, version: record.version.current, regions: record.regions.map { venue.id(ofRegion: $0) },
            inside: record.inside.map { venue.id(ofRegion: $0) }, position: position(record),
            lastSeen: Milliseconds.date(record.lastSeen), kind: record.isPhone ? "phone" : "tag",
            present: record.present, advertising: record.beacon?.clientIdentifier, wakeable: record.wakeability, phone: record.phone)
    }

    /// Where each of `ids` is, in order (`nil`: not known, e.g. expired): snapshots without the
    /// monitored sets (`regions` empty) or the advertised identity, which a watcher showing
    /// positions does not need and which cost most of a snapshot.
    public func placements(_ ids: some Collection<String>) -> [ClientSnapshot?] {
        ids.map { id in
            table[id: id].map { record in
                ClientSnapshot(
                    id: record.id, version: record.version.current, regions: [], inside: record.inside.map { venue.id(ofRegion: $0) },
                    position: position(record), lastSeen: Milliseconds.date(record.lastSeen), kind: record.isPhone ? "phone" : "tag",
                    present: record.present, advertising: nil, wakeable: record.wakeability)
            }
        }
    }

    /// Takes what was decided since the last call: the state of every client changed (to write
    /// before publishing, now marked written), the ids of clients removed, the outputs in order,
    /// and the clients touched.
    public func take() -> CoordinatorDecisions {
        let taken = outbox.take()
        var changed: [StoredClient] = []
        for index in taken.persist {
            guard table[index]?.needsPersist == true else { continue }
            table[index]!.needsPersist = false
            table[index]!.persistedSeen = table[index]!.lastSeen
            changed.append(stored(table[index]!))
        }
        return CoordinatorDecisions(outputs: taken.messages, changed: changed, removed: taken.removed, touched: taken.touched)
    }

    /// Every client whose `lastSeen` the store has not caught up with (it is written at most every
    /// ``Configuration/lastSeenPersistInterval`` while running) is due for the store: before the
    /// coordinator stops, so a restart resumes them as they were and does not expire them early.
    public func persistUnsaved() {
        for index in table.indices {
            guard let record = table[index], record.lastSeen > record.persistedSeen else { continue }
            table[index]!.needsPersist = true
            outbox.persist(index)
        }
    }

    func stored(_ record: ClientRecord) -> StoredClient {
        StoredClient(
            id: record.id, version: record.version.current, regions: record.regions.map { venue.id(ofRegion: $0) },
            position: position(record), lastSeen: record.lastSeen, isPhone: record.isPhone, beacon: record.beacon?.storageText,
            budget: record.budget.slots ?? 0)
    }

    // MARK: - Deciding

    /// Estimates, plans and decides events for every client touched since the last flush;
    /// the decisions are queued for ``take()``.
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
        let queued = dirty.take()
        let (interval, spacing) = (configuration.tagEstimateInterval, configuration.tagEstimateSpacing)
        var decided = 0
        var unexamined = queued.endIndex
        for position in queued.indices {
            if decided >= limit {
                unexamined = position
                break
            }
            let index = queued[position]
            // Checked in place: reading the record out copies it.
            guard let (isPhone, waits) = table[index]?.flushCheck(now: now, interval: interval, spacing: spacing, backlogged: backlogged)
            else {
                dirty.clear(index)  // gone
                continue
            }
            if waits || (phonesOnly && !isPhone) {
                dirty.requeue(index)  // stays dirty; its evidence keeps accumulating
                continue
            }
            if !isPhone { decided += 1 }
            dirty.clear(index)
            // Taken out of its slot while it is updated, so that the record is the only owner of
            // its arrays: a copy beside the slot's would copy them on their first write.
            guard var record = table.take(index) else { continue }
            update(&record, now: now)
            if record.needsPersist { outbox.persist(index) }
            outbox.touch(index)
            table[index] = record
        }
        guard unexamined < queued.endIndex else { return false }
        dirty.requeueFirst(queued[unexamined...])
        return true
    }

    func update(_ record: inout ClientRecord, now: Int64) {
        let venue = self.venue
        // Location: fresh radio observations and the phone's region events since the last estimate.
        var fresh: [PositionObservation] = []
        var freshCount = 0
        var evidenceTime = record.location.map { Timestamp(rawValue: Milliseconds.of(stateTime: $0.time)) } ?? .never
        if !record.observations.isEmpty {
            let newest = record.observations.reduce(Int64.min) { max($0, $1.time) }
            for i in record.observations.indices {
                let o = record.observations[i]
                guard newest - o.time <= configuration.observationHorizon else { continue }
                let anchor: Int32
                if let gateway = o.anchor.gateway.map(Int.init) {
                    guard gateway < venue.gatewayAnchor.count else { continue }
                    anchor = venue.gatewayAnchor[gateway]
                } else {
                    let region = Int(o.anchor.region!)
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
                        txPower: o.txPower.dBm))
                evidenceTime = max(evidenceTime, Timestamp(rawValue: o.time))
            }
        }
        if freshCount > 0 || !record.regionEvidence.isEmpty {
            record.estimatedAt = Timestamp(rawValue: now)
            // A phone's region events, each once, at its time: the filter carries it forward (its
            // prior spreads at walking speed), as it does ranged beacons. A tag has none: its
            // `inside` is only where its last estimate put it.
            let constraints = regionConstraints(record, fresh: freshCount > 0)
            record.regionEvidence = []
            evidenceTime = max(evidenceTime, record.regionEvidenceTime)
            record.regionEvidenceTime = .never
            if freshCount > 0 || !constraints.isEmpty {
                let at = Milliseconds.date(evidenceTime.milliseconds ?? now)
                if let estimate = venue.estimator.update(record.location, observations: fresh, constraints: constraints, at: at) {
                    counters.estimates += 1
                    record.location = estimate.state
                    record.confidence = estimate.confidence
                }
                // The same evidence for the estimate presence goes by, where the venue keeps one.
                if let presenceEstimator = venue.presenceEstimator,
                    let estimate = presenceEstimator.update(record.presenceLocation, observations: fresh, constraints: constraints, at: at)
                {
                    record.presenceLocation = estimate.state
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
        if venue.tracksPresence {
            stepPresence(&record, at: record.presenceLocation.map(venue.point(of:)) ?? point, now: now, time: time)
        }
        if record.movedAt.map({ $0.distance(to: point) >= configuration.movedEventDistance }) ?? true {
            record.movedAt = point
            emit(.moved, region: nil, record: record, time: time, evidence: record.isPhone ? "report" : "sightings")
        }
        // Only phones monitor regions: a client that never reported (a tag, a badge, a cart) is
        // located, not planned, and gets no `regions` message (one it had from an older
        // coordinator, restored from the store, is cleared once).
        guard record.isPhone else {
            record.forcePlan = false
            record.reconcileFrom = nil
            record.reason = nil
            if !record.regions.isEmpty {
                record.regions = []
                record.needsPersist = true
                outbox.publish(.clearRegions(client: record.id))
            }
            return
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
        for evidence in record.regionEvidence where evidence.isEnter && !fresh {
            let region = topology.regions[Int(evidence.region)]
            if let inside = disk(.inside, Int(evidence.region)) {
                constraints.append(inside)
                entered = true
            } else if let level = region.level, !region.isPinned {
                constraints.append(PositionConstraint(.inside, x: 0, y: 0, level: level, radius: .infinity))
            }
        }
        let prior =
            record.location.map { location in
                // (Events come with their time: `regionEvidenceTime` is set while `regionEvidence` has any.)
                Milliseconds.stateTime(record.regionEvidenceTime.rawValue) - location.time <= venue.estimator.configuration.maximumAge
            } ?? false
        guard fresh || entered || prior else { return constraints }
        for evidence in record.regionEvidence where !evidence.isEnter {
            if let outside = disk(.outside, Int(evidence.region)) { constraints.append(outside) }
        }
        return constraints
    }

    /// How long a ranged beacon is remembered, milliseconds: the longest a region added after it may
    /// still start inside (``InRangeWindow/assumed``).
    static let warmWindow = InRangeWindow.assumed

    /// The regions whose beacons the phone ranged lately, as the planner needs them, while its
    /// latest report is recent: *heard* within its ``InRangeWindow`` (a region added now may start
    /// inside, so it cannot wake the phone) and *warm* before that (quiet by what the phone showed,
    /// a trip wire of last resort). Ages are measured on the report's own clock (a phone's clock
    /// may be off; a simulation's runs faster).
    func heard(by record: ClientRecord, now: Int64) -> (hot: [Int], warm: [Int], told: [Int]) {
        guard record.isPhone, now - record.lastSeen <= Self.warmWindow, let newest = record.heard.lazy.map(\.time).max() else {
            return ([], [], [])
        }
        let window = record.inRange.window
        var hot: [Int] = []
        var warm: [Int] = []
        var told: [Int] = []
        for entry in record.heard where newest - entry.time + (now - record.lastSeen) < Self.warmWindow {
            if newest - entry.time + (now - record.lastSeen) < window {
                hot.append(Int(entry.region))
            } else {
                warm.append(Int(entry.region))
            }
            if entry.told { told.append(Int(entry.region)) }
        }
        return (hot, warm, told)
    }

    /// How long before `now` the phone last ranged each of `regions` (those it never ranged, or not
    /// within the warm window, are left out), milliseconds.
    func rangedAges(of regions: [PlannedRegion], in record: ClientRecord, now: Int64) -> [InRangeWindow.Probe] {
        guard let newest = record.heard.lazy.map(\.time).max() else { return [] }
        return regions.compactMap { planned in
            record.heard.first { $0.region == Int32(planned.region) }.map {
                InRangeWindow.Probe(region: Int32(planned.region), age: newest - $0.time + (now - record.lastSeen))
            }
        }
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
            let ranged = heard(by: record, now: now)
            let plan = venue.planner.plan(
                PlanRequest(
                    location: location, monitored: previous.map(Int.init), inside: record.inside.map(Int.init),
                    heard: ranged.hot, warm: ranged.warm, told: ranged.told, awake: record.phone?.foreground == true,
                    stateUnknown: record.stateUnknown.map(Int.init), budget: budget,
                    uncertainty: record.confidence, now: Milliseconds.date(now)),
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
        let reason = record.version.isFirst ? .initial : record.reason ?? .moved
        record.reason = nil
        // A region the plan does not monitor can never fire an exit: it leaves the phone's inside set.
        if record.isPhone, !record.inside.isEmpty {
            let planned = Set(regions)
            record.inside.removeAll { !planned.contains($0) }
        }
        // The set, not its slot order, is what the phone monitors: a reordering alone is no change.
        // A record's first set is published even when empty (a budget of 0): the phone learns it.
        let changed = Set(regions) != Set(record.regions) || !record.vanished.isEmpty || record.version.isFirst
        guard changed || reconcile != nil else { return }
        if reconcile != nil { counters.reconciliations += 1 }
        let next = Set(regions)
        let add = added.map { venue.regionRefs[$0.region] }
        let remove = record.vanished + removed.map { venue.topology.regions[$0].id }
        record.vanished = []
        let version = record.version.advance(now: now)
        if record.isPhone { record.inRange.probe(version: version, at: now, added: rangedAges(of: added, in: record, now: now)) }
        record.regions = regions
        // Regions this set adds report their state from now on; those it drops are no concern.
        if !record.stateUnknown.isEmpty { record.stateUnknown.removeAll { !next.contains($0) } }
        record.missedReports = false
        // What this version answers: a reconciliation from the set the phone held, or nothing.
        record.answered = reconcile.map { $0.sorted() }
        record.needsPersist = true
        let message = RegionsMessage(
            version: version, budget: budget, regions: regions.map { venue.regionRefs[Int($0)] }, add: add, remove: remove,
            position: position(record), reason: reason.rawValue,
            validFor: validFor.map { ($0 * 100).rounded() / 100 }, time: Milliseconds.date(now))
        outbox.publish(.regions(client: record.id, message))
        counters.regionsPublished += 1
    }

    /// The slots to plan for `record`: the coordinator's budget, capped by the one the phone
    /// stated (0 is a budget: no slots) and by the capacity it showed, until that is to be retried.
    func slots(for record: inout ClientRecord, now: Int64) -> Int {
        var slots = statedSlots(record.budget)
        if let capacity = record.capacity.slots {
            if now - record.capacitySince > configuration.capacityRetry {
                record.capacity = .unstated
            } else {
                slots = min(slots, capacity)
            }
        }
        return slots
    }

    /// The coordinator's budget capped by the one a phone stated (``SlotLimit/unstated``: none).
    func statedSlots(_ stated: SlotLimit) -> Int {
        stated.slots.map { min(configuration.budget, $0) } ?? configuration.budget
    }

    func emit(_ type: ClientEvent.Kind, region: Int32?, record: ClientRecord, time: Int64, evidence: String) {
        emit(type, region: region, client: record.id, position: position(record), time: time, evidence: evidence)
    }

    func emit(_ type: ClientEvent.Kind, region: Int32?, client: String, position: Position?, time: Int64, evidence: String) {
        let event = ClientEvent(
            client: client, type: type, region: region.map { venue.id(ofRegion: $0) }, position: position,
            time: Milliseconds.date(time), evidence: evidence)
        outbox.publish(.event(client: client, event))
        counters.eventsPublished += 1
    }

    /// Expires clients idle longer than the configured timeout: they are forgotten and their
    /// retained `regions` cleared.
    public func expireIdle(now: Int64) {
        for index in table.indices {
            guard let record = table[index], now - record.lastSeen > configuration.idleTimeout else { continue }
            remove(index)
            counters.expired += 1
            // Only a client that was sent a set has a retained one to clear (tags never are).
            if !record.version.isFirst || !record.regions.isEmpty { outbox.publish(.clearRegions(client: record.id)) }
        }
    }

    func remove(_ index: Int32) {
        guard let record = table.remove(index) else { return }
        if record.wakeability == .no { counters.unwakeablePhones -= 1 }
        gateways.forget(index)
        outbox.removed(record.id)
    }

}
