import BeaconKit
import Foundation
import Planner
import Topology
public import WireProtocol

/// Ingest: routing a message, and applying sightings windows, phone reports and gateway status.
extension CoordinatorEngine {
    // MARK: - Ingest

    /// Applies one inbound message (``InboundPayload``, read by an ``InboundDecoder``). Throws the
    /// ``WireError`` that rejected it (counted); nothing rejected changes any state.
    public func apply(_ payload: InboundPayload, now: Int64) throws(WireError) {
        switch payload {
        case .sightings(let gateway, let batch):
            applySightings(gateway: gateway, batch: batch, now: now)
        case .report(let client, let report):
            applyReport(client: client, report: report, now: now)
        case .gatewayStatus(let gateway, let status):
            applyGatewayStatus(gateway: gateway, status: status)
        case .regions, .memberStatus, .ignored:
            // Our own outputs (or another coordinator's, which a partitioned member adopts
            // before the engine sees them), events, statuses: not input.
            return
        case .rejected(let error, let rejection):
            switch rejection {
            case .invalidTopic: counters.invalidTopics += 1
            case .oversizedPayload: counters.oversizedPayloads += 1
            case .invalidPayload: counters.invalidPayloads += 1
            }
            throw error
        }
    }

    /// Applies one gateway window. Sightings of region beacons are counted and skipped; every other
    /// identity already tracked is a mobile client (or the phone that declared it as its advertising
    /// identity); a new one becomes a client when the venue's ``Topology/ClientPolicy`` admits it
    /// (always, without a policy), and is otherwise counted per gateway and reason, not tracked.
    func applySightings(gateway: String, batch: DecodedSightingsBatch, now: Int64) {
        counters.sightingsBatches += 1
        counters.sightings += UInt64(batch.sightings.count)
        var resets: UInt64 = 0
        let accepted = gateways.accept(
            gateway: gateway, seq: batch.seq, epoch: batch.epoch, missed: &counters.missedBatches, resets: &resets)
        counters.sequenceResets += resets
        guard accepted else {
            counters.duplicateBatches += 1
            return
        }
        guard let g = venue.topology.gatewayIndex(id: gateway) else {
            counters.unknownGatewayBatches += 1
            return
        }
        let gatewayIndex = Int32(g)
        if !gateways.online[g] { gateways.online[g] = true }
        let time = batch.endMilliseconds
        let sightings = batch.sightings
        // First resolve every sighting to its client (creating new ones), walking this gateway's
        // last window alongside (moved out, not copied); this window is recalled in its place for
        // the next one, and the last one's arrays are reused.
        var window = scratch.beginWindow()
        let stamp = scratch.stamp
        let recall = gateways.recalled[g]
        gateways.recalled[g] = RecalledWindow()
        var refused = AdmissionCounts()
        table.resolve(sightings, recalling: recall, venue: venue, now: now, into: &window, refused: &refused) { i, region in
            noteRegionBeacon(gateway: gatewayIndex, region: region, rssi: sightings[i].rssi, count: sightings[i].count, time: time)
        }
        counters.regionBeaconSightings += refused.region
        if refused != AdmissionCounts() { counters.notAdmitted[gateway, default: AdmissionCounts()].add(refused) }
        let slots = table.slotCount
        scratch.withSeen(slots: slots) { seen in
            table.withRecords { records in
                CoordinatorEngine.observe(
                    sightings, clients: window.slots, gateway: gatewayIndex, time: time, now: now, stamp: stamp,
                    configuration: configuration, maximum: maximumObservations, records: records, seen: seen,
                    coverage: &gateways.tables[g], dirty: &dirty)
            }
        }
        gateways.recalled[g] = window
        scratch.reuse(recall)
        // Clients this gateway covered but did not hear in this window.
        let departed = scratch.departures(from: &gateways.tables[g], limit: configuration.absenceWindows)
        guard !departed.isEmpty else { return }
        var departures = 0
        var exits: [Int32] = []
        table.withRecords { records in
            CoordinatorEngine.uncover(
                departed, coverage: &gateways.tables[g], records: records, outbox: &outbox, departures: &departures, exits: &exits)
        }
        counters.departures += UInt64(departures)
        outbox.touch(contentsOf: departed)
        // Clients that left from inside regions: their exits, in the order they left.
        for client in exits { emitAbsenceExits(client, now: time) }
    }

    /// Gateway coverage of `candidates` ended (too many windows without them): each one that no
    /// gateway covers any more has left: every healthy gateway that covered it missed it for
    /// several windows. Done in place; those inside regions are appended to `exits` for their exit events.
    static func uncover(
        _ candidates: [Int32], coverage: inout CoverageTable, records: UnsafeMutableBufferPointer<ClientRecord?>, outbox: inout Outbox,
        departures: inout Int, exits: inout [Int32]
    ) {
        for client in candidates {
            coverage.removeValue(forKey: client)
            // A mutating call through `?.` works in place; reading a field through it copies the record.
            guard let outcome = records[Int(client)]?.loseCover(), outcome != .stays else { continue }
            departures += 1
            if outcome == .leftFromInside { exits.append(client) }
            outbox.persist(client)
        }
    }

    /// Emits the absence exits of a client that just left (its regions, then the room and level
    /// presence showed) and forgets them.
    func emitAbsenceExits(_ index: Int32, now: Int64) {
        guard var record = table.take(index) else { return }
        let position = position(record)
        for region in record.inside {
            emit(.exit, region: region, client: record.id, position: position, time: now, evidence: "absence")
        }
        record.inside = []
        emitPresenceExits(&record, position: position, time: now)
        table[index] = record
    }

    /// The per-sighting part of ``applySightings(gateway:batch:now:)``, on the engine's memory
    /// passed in (one access each per batch) and with every record updated in place.
    static func observe(
        _ sightings: [DecodedSighting], clients indices: [Int32], gateway: Int32, time: Int64, now: Int64, stamp: UInt32,
        configuration: Configuration, maximum: Int, records: UnsafeMutableBufferPointer<ClientRecord?>,
        seen: UnsafeMutableBufferPointer<UInt32>, coverage: inout CoverageTable, dirty: inout DirtyQueue
    ) {
        let horizon = configuration.observationHorizon
        let persistInterval = configuration.lastSeenPersistInterval
        let seenAt = max(time, now)
        let anchor = Anchor.gateway(gateway)
        sightings.withUnsafeBufferPointer { sightings in
            indices.withUnsafeBufferPointer { indices in
                for n in 0..<sightings.count {
                    let index = indices[n]
                    if index < 0 { continue }
                    let i = Int(index)
                    let sighting = sightings[n]
                    seen[i] = stamp
                    let observation = CompactObservation(
                        anchor: anchor, rssi: Float(sighting.rssi), txPower: MeasuredPower(sighting.txPower),
                        count: UInt16(clamping: sighting.count), time: time)
                    let wasCovered = coverage.updateValue(0, forKey: index) != nil
                    records[i]!.absorb(
                        observation, seenAt: seenAt, covered: wasCovered, maximum: maximum, horizon: horizon,
                        persistInterval: persistInterval)
                    dirty.mark(index)
                }
            }
        }
    }

    /// Applies a phone's report: its budget, advertising identity, region events, ranged beacons
    /// and, when it differs from the last plan, its monitored list (reconciliation).
    func applyReport(client: String, report: ClientReport, now: Int64) {
        counters.reports += 1
        let index = table.client(forID: client, now: now)
        var record = table[index]!
        record.isPhone = true
        record.lastSeen = max(record.lastSeen, now)
        record.needsPersist = true
        if !record.present {
            record.present = true
            record.forcePlan = true
        }
        if let budget = report.budget.map(SlotLimit.init(clamping:)), budget != record.budget {
            let slotsBefore = statedSlots(record.budget)
            record.budget = budget
            // Re-planned only when the slots a plan gets change: a budget first heard that the
            // plans already fit (a member that took the client over, see adoptPublished) is no news.
            if statedSlots(record.budget) != slotsBefore {
                record.capacity = .unstated  // a new budget: what the phone could hold before says nothing
                record.forcePlan = true
                record.reason = .budget
            }
        }
        // What the phone says about itself: whether iOS can wake it at all (the map shows it).
        if let phone = report.phone {
            let before = record.wakeability
            record.phone = phone
            if before != record.wakeability {
                counters.unwakeablePhones += (record.wakeability == .no ? 1 : 0) - (before == .no ? 1 : 0)
                outbox.touch(index)
            }
        }
        table[index] = record
        if let advertising = report.advertising, let key = advertising.identity {
            adopt(beacon: key, for: index)
        }
        record = table[index]!
        let time = report.time.map(Milliseconds.of) ?? now
        // Region events are the phone's own truth about inside and outside, and evidence of range
        // for its estimate: an enter means iOS detected the beacon (within its detection range),
        // an exit that it has not for about 30 s. Neither puts the phone at the beacon.
        let reported = record.regionEvidence.count
        for event in report.events {
            guard let region = venue.topology.regionIndex(id: event.region).map(Int32.init) else {
                counters.unknownReferences += 1
                continue
            }
            // A region whose state this engine may have missed (``ClientRecord/stateUnknown``):
            // what the phone says of it is news even when it matches what the record holds.
            let missed = record.stateUnknown.contains(region)
            record.noteStateKnown(region)
            let at = event.time.map(Milliseconds.of) ?? time
            switch event.type {
            case .enter:
                let known = record.inside.contains(region)
                if !known || missed {
                    if !known { record.inside.append(region) }
                    record.forcePlan = true
                    emit(.enter, region: region, record: record, time: time, evidence: "report")
                }
                record.regionEvidence.append(.enter(region))
            case .exit:
                let known = record.inside.firstIndex(of: region)
                if known != nil || missed {
                    if let known { record.inside.remove(at: known) }
                    record.forcePlan = true
                    emit(.exit, region: region, record: record, time: time, evidence: "report")
                }
                record.regionEvidence.append(.exit(region))
            }
            record.regionEvidenceTime = max(record.regionEvidenceTime, Timestamp(rawValue: at))
        }
        counters.unknownReferences += absorbRanged(report.ranged, into: &record, time: time)
        // What iOS told the app about the regions it ranges (after the ranging, which a wake's
        // first report carries with the enter that woke it).
        for event in record.regionEvidence[reported...] { record.tell(event.region, event.isEnter) }
        // A region iOS monitors while the phone ranges its beacon is covered on this approach,
        // whether or not an enter for it reached us: iOS sends one per stay inside, and a stay
        // outlives our record of the hearing (iOS exits 30–90 s after the last detection; a phone
        // asleep ranges nothing). Its slot can go to a region not yet told: plan again. Ids the
        // topology does not know are the app's own regions (or ones a reload removed, already
        // being removed): not BeaconFleet's.
        let held = report.monitored.map { ids in ids.compactMap { venue.topology.regionIndex(id: $0).map(Int32.init) } }
        for region in held ?? [] where record.tellIfRanged(region, at: time) { record.forcePlan = true }
        // A region the version this report applied added started inside (an enter: its
        // requestState answer) or outside: what the phone's iOS counts as "in range". Only while
        // a probe waits for its answer (most reports have none to give).
        if record.inRange.isWaiting {
            record.inRange.answer(
                version: report.version,
                entered: Set(record.regionEvidence[reported...].lazy.filter(\.isEnter).map(\.region)),
                ranged: Set(
                    report.ranged.lazy.compactMap { BeaconIdentity(uuid: $0.uuid, major: $0.major, minor: $0.minor) }.compactMap {
                        self.venue.regionByBeacon[$0]
                    }),
                monitored: record.regions, at: now)
        }
        // Reconciliation: what iOS monitors is the truth, but only about the version the phone says
        // it applied. A list sent before the phone applied our latest version (or before it applied
        // any: no `version`) is stale and says nothing; a phone that has applied nothing has refused
        // nothing.
        if let held, !record.version.isFirst, report.version == record.version.current {
            reconcile(&record, held: held, now: now)
        }
        dirty.mark(index)
        table[index] = record
    }

    /// The beacons a phone ranged: each one's region heard (``ClientRecord/hear(_:at:window:)``)
    /// and its RSSI evidence for the estimate. Answers how many are no region beacon of the venue.
    func absorbRanged(_ ranged: [RangedBeacon], into record: inout ClientRecord, time: Int64) -> UInt64 {
        var unknown: UInt64 = 0
        var heard: [(region: Int, rssi: Double)] = []
        defer { noteRanged(heard) }
        for beacon in ranged {
            guard let key = BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor),
                let region = venue.regionByBeacon[key]
            else {
                unknown += 1
                continue
            }
            heard.append((Int(region), Double(beacon.rssi)))
            record.hear(region, at: time, window: Self.warmWindow)
            guard beacon.rssi != 0, venue.topology.regions[Int(region)].position != nil else { continue }  // unmeasured, or no place
            record.observe(
                CompactObservation(anchor: .region(region), rssi: Float(beacon.rssi), time: time),
                maximum: maximumObservations, horizon: configuration.observationHorizon)
        }
        return unknown
    }

    /// Compares what the phone holds (`held`, for the current version) with the last plan and
    /// decides whether to re-plan from it (`reconcileFrom`). Never a loop:
    ///
    /// - a region the phone does not hold can never fire an exit, so it leaves `inside`;
    /// - a first discrepancy is answered: re-planned from what the phone holds and published
    ///   (iOS may have dropped a region it will take back);
    /// - when this version already answered one and the phone still holds fewer than planned, all
    ///   of them planned, it is out of room (iOS refused or silently ignored the rest although its
    ///   budget allowed them): its capacity is what it holds (at least 1: only the phone's own
    ///   budget says 0), and plans stay within it (``Configuration/capacityRetry``), so the next set fits;
    /// - any other discrepancy this version already answered (the same set held) is not answered
    ///   again: the same answer would meet the same refusal.
    func reconcile(_ record: inout ClientRecord, held: [Int32], now: Int64) {
        let have = Set(held)
        record.inside.removeAll { !have.contains($0) }
        let planned = Set(record.regions)
        guard have != planned else {
            record.answered = nil
            return
        }
        if record.answered != nil, have.isStrictSubset(of: planned) {
            // At least one slot: only the phone's own budget can say 0 (an empty set could never
            // wake a suspended phone again).
            let shown = Swift.max(1, have.count)
            if record.capacity.slots.map({ $0 > shown }) ?? true {
                record.capacity = SlotLimit(clamping: shown)
                record.capacitySince = now
            }
        } else if record.answered == have.sorted() {
            return
        }
        record.reconcileFrom = held
        record.reason = .reconcile
    }

    /// Applies a gateway's status: an offline gateway stops vouching for anyone, without making
    /// anyone leave (silence from a dead gateway is not evidence).
    func applyGatewayStatus(gateway: String, status: GatewayStatus) {
        counters.gatewayStatuses += 1
        if gateways.noteStatus(gateway: gateway, online: status.state == .online) { counters.sequenceResets += 1 }
        guard let g = venue.topology.gatewayIndex(id: gateway) else { return }
        switch status.state {
        case .online:
            gateways.online[g] = true
        case .offline:
            gateways.online[g] = false
            for client in gateways.tables[g].clients {
                guard let covers = table[client]?.coverCount else { continue }
                table[client]!.coverCount = covers > 0 ? covers - 1 : 0
            }
            gateways.tables[g].removeAll()
        }
    }
}
