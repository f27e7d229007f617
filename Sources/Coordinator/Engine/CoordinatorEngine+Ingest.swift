import BeaconKit
import Foundation
import Planner
import Topology
public import WireProtocol

/// Ingest: routing a message, and applying sightings windows, phone reports and gateway status.
extension CoordinatorEngine {
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
        case .clientRegions, .clientEvents, .coordinatorStatus, .gatewayConfig:
            // Our own outputs (or another coordinator's): not input.
            return
        }
    }

    /// Decodes and validates a phone's report.
    func decodeReport(_ payload: UnsafeRawBufferPointer, topic: String) throws(WireError) -> ClientReport {
        try ClientReport.decode(payload, topic: topic, decoder: reportDecoder)
    }

    /// Applies one gateway window. Sightings of region beacons are counted and skipped; every other
    /// identity already tracked is a mobile client (or the phone that declared it as its advertising
    /// identity); a new one becomes a client when the venue's ``Topology/ClientPolicy`` admits it
    /// (always, without a policy), and is otherwise counted per gateway and reason, not tracked.
    public func applySightings(gateway: String, batch: DecodedSightingsBatch, now: Int64) {
        counters.sightingsBatches += 1
        counters.sightings += UInt64(batch.sightings.count)
        var resets: UInt64 = 0
        let accepted = gateways.accept(gateway: gateway, seq: batch.seq, epoch: batch.epoch, missed: &counters.missedBatches, resets: &resets)
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
        var byBeacon = table.byBeacon
        table.byBeacon = [:]
        let policy = venue.topology.clientPolicy
        var refused = AdmissionCounts()
        // This gateway's last window, walked alongside (moved out, as the index is); this window
        // is recalled in its place for the next one.
        let recall = gateways.recalled[g]
        gateways.recalled[g] = RecalledWindow()
        let recalls = recall.version == byBeacon.version
        var cursor = 0
        var next = scratchRecall
        scratchRecall = RecalledWindow()
        next.keys.removeAll(keepingCapacity: true)
        let versionBefore = byBeacon.version
        for i in sightings.indices {
            let key = sightings[i].key
            next.keys.append(key)
            if recalls, let slot = recall.slot(of: key, cursor: &cursor) {
                indices.append(slot)
                continue
            }
            if checkRegions, regionIDs.mayContain(key), let region = regionByBeacon[key] {
                regionBeacons += 1
                noteRegionBeacon(gateway: gatewayIndex, region: region, rssi: sightings[i].rssi, count: sightings[i].count, time: time)
                indices.append(-1)
                continue
            }
            if let index = byBeacon[key] {
                indices.append(index)
                continue
            }
            if let policy {
                switch policy.verdict(for: key, address: sightings[i].address) {
                case .client: break
                case .venue:
                    refused.venue += 1
                    indices.append(-1)
                    continue
                case .unlisted:
                    refused.unlisted += 1
                    indices.append(-1)
                    continue
                }
            }
            table.byBeacon = byBeacon
            byBeacon = [:]
            indices.append(clientIndex(forBeacon: key, now: now))
            byBeacon = table.byBeacon
            table.byBeacon = [:]
        }
        table.byBeacon = byBeacon
        counters.regionBeaconSightings += regionBeacons
        refused.region = regionBeacons
        if refused != AdmissionCounts() { counters.notAdmitted[gateway, default: AdmissionCounts()].add(refused) }
        CoordinatorEngine.observe(
            sightings, clients: indices, gateway: gatewayIndex, time: time, now: now, stamp: stamp,
            configuration: configuration, maximum: maximumObservations, records: &table.records, seen: &seenStamp,
            coverage: &gateways.tables[g], dirty: &dirtyClients)
        // The slots found are this window's recall; the last recall's arrays are reused next time.
        // A new client whose slot moved an identity (an index change in the loop) leaves nothing
        // recalled: the slots found before it may be stale.
        next.slots = indices
        next.version = table.byBeacon.version == versionBefore ? versionBefore : nil
        gateways.recalled[g] = next
        scratchIndices = recall.slots
        scratchRecall = RecalledWindow(keys: recall.keys)
        // Clients this gateway covered but did not hear in this window.
        var departedCandidates = scratchDeparted
        scratchDeparted = []
        departedCandidates.removeAll(keepingCapacity: true)
        seenStamp.withUnsafeBufferPointer { seen in
            gateways.tables[g].advanceMisses(seen: seen, stamp: stamp, limit: configuration.absenceWindows, departed: &departedCandidates)
        }
        if !departedCandidates.isEmpty {
            var departures = 0
            var exits: [Int32] = []
            CoordinatorEngine.uncover(
                departedCandidates, coverage: &gateways.tables[g], records: &table.records, persistPending: &persistPending,
                departures: &departures, exits: &exits)
            counters.departures += UInt64(departures)
            if tracksTouched { touched.append(contentsOf: departedCandidates) }
            // Clients that left from inside regions: their exits, in the order they left.
            for client in exits { emitAbsenceExits(client, now: time) }
        }
        scratchDeparted = departedCandidates
    }

    /// Gateway coverage of `candidates` ended (too many windows without them): each one that no
    /// gateway covers any more has left: every healthy gateway that covered it missed it for several windows. Done in place; those inside
    /// regions are appended to `exits` for their exit events.
    static func uncover(
        _ candidates: [Int32], coverage: inout CoverageTable, records: inout [ClientRecord?], persistPending: inout [Int32],
        departures: inout Int, exits: inout [Int32]
    ) {
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
    func emitAbsenceExits(_ index: Int32, now: Int64) {
        let i = Int(index)
        guard table.records[i] != nil else { return }
        let id = table.records[i]!.id
        let position = position(table.records[i]!)
        let inside = table.records[i]!.inside
        for region in inside {
            emit(.exit, region: region, client: id, position: position, time: now, evidence: "absence")
        }
        table.records[i]!.inside = []
    }

    /// The per-sighting part of ``applySightings(gateway:batch:now:)``, on the engine's arrays
    /// passed in (one access each per batch) and with every record updated in place.
    static func observe(
        _ sightings: [DecodedSighting], clients indices: [Int32], gateway: Int32, time: Int64, now: Int64, stamp: UInt32,
        configuration: Configuration, maximum: Int, records: inout [ClientRecord?], seen: inout [UInt32],
        coverage: inout CoverageTable, dirty: inout [Int32]
    ) {
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
                            let observation = CompactObservation(
                                anchor: gateway, rssi: Float(sighting.rssi),
                                txPower: sighting.txPower.map { Int8(clamping: $0) } ?? .min,
                                count: UInt16(clamping: sighting.count), time: time)
                            let wasCovered = coverage.updateValue(0, forKey: index) != nil
                            if records[i]!.absorb(
                                observation, seenAt: seenAt, covered: wasCovered, maximum: maximum, horizon: horizon,
                                persistInterval: persistInterval)
                            {
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
        var record = table.records[Int(index)]!
        record.isPhone = true
        record.lastSeen = max(record.lastSeen, now)
        record.needsPersist = true
        if !record.present {
            record.present = true
            record.forcePlan = true
        }
        if let budget = report.budget.map(UInt8.init(clamping:)), budget != record.budget {
            let slotsBefore = statedSlots(record.budget)
            record.budget = budget
            // Re-planned only when the slots a plan gets change: a budget first heard that the
            // plans already fit (a member that took the client over, see adoptPublished) is no news.
            if statedSlots(record.budget) != slotsBefore {
                record.capacity = ClientRecord.unstated  // a new budget: what the phone could hold before says nothing
                record.forcePlan = true
                record.reason = .budget
            }
        }
        // What the phone says about itself: whether iOS can wake it at all (the map shows it).
        if let phone = report.phone {
            let before = record.wakeability
            record.phone = phone
            if before != record.wakeability {
                unwakeablePhones += (record.wakeability == .no ? 1 : 0) - (before == .no ? 1 : 0)
                if tracksTouched { touched.append(index) }
            }
        }
        table.records[Int(index)] = record
        if let advertising = report.advertising, let key = advertising.identity {
            adopt(beacon: key, for: index, now: now)
        }
        record = table.records[Int(index)]!
        let time = report.time.map { Int64($0.timeIntervalSince1970 * 1000) } ?? now
        // Region events are the phone's own truth about inside and outside, and evidence of range
        // for its estimate: an enter means iOS detected the beacon (within its detection range),
        // an exit that it has not for about 30 s. Neither puts the phone at the beacon.
        for event in report.events {
            guard let region = venue.topology.regionIndex(id: event.region).map(Int32.init) else {
                counters.unknownReferences += 1
                continue
            }
            record.noteStateKnown(region)
            switch event.type {
            case .enter:
                if !record.inside.contains(region) {
                    record.inside.append(region)
                    record.forcePlan = true
                    emit(.enter, region: region, record: record, time: time, evidence: "report")
                }
                record.regionEvidence.append(region)
            case .exit:
                if let at = record.inside.firstIndex(of: region) {
                    record.inside.remove(at: at)
                    record.forcePlan = true
                    emit(.exit, region: region, record: record, time: time, evidence: "report")
                }
                record.regionEvidence.append(-(region + 1))
            }
            let at = event.time.map { Int64($0.timeIntervalSince1970 * 1000) } ?? time
            record.regionEvidenceTime = max(record.regionEvidenceTime, at)
        }
        counters.unknownReferences += absorbRanged(report.ranged, into: &record, time: time)
        // Reconciliation: what iOS monitors is the truth, but only about the version the phone says
        // it applied. A list sent before the phone applied our latest version (or before it applied
        // any: no `version`) is stale and says nothing; a phone that has applied nothing has refused
        // nothing. Ids the topology does not know are the app's own regions (or ones a reload
        // removed, already being removed): not BeaconFleet's to compare.
        if let monitored = report.monitored, record.version > 0, report.version == record.version {
            var held: [Int32] = []
            for id in monitored {
                if let region = venue.topology.regionIndex(id: id) { held.append(Int32(region)) }
            }
            reconcile(&record, held: held, now: now)
        }
        if !record.dirty {
            record.dirty = true
            dirtyClients.append(index)
        }
        table.records[Int(index)] = record
    }

    /// The beacons a phone ranged: each one's region heard (``ClientRecord/hear(_:at:window:)``)
    /// and its RSSI evidence for the estimate. Answers how many are no region beacon of the venue.
    func absorbRanged(_ ranged: [RangedBeacon], into record: inout ClientRecord, time: Int64) -> UInt64 {
        var unknown: UInt64 = 0
        for beacon in ranged {
            guard let key = BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor),
                let region = venue.regionByBeacon[key]
            else {
                unknown += 1
                continue
            }
            record.hear(region, at: time, window: Self.heardWindow)
            guard beacon.rssi != 0, venue.topology.regions[Int(region)].position != nil else { continue }  // unmeasured, or no place
            record.observe(
                CompactObservation(anchor: -(region + 1), rssi: Float(beacon.rssi), time: time),
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
            if record.capacity == ClientRecord.unstated || Int(record.capacity) > shown {
                record.capacity = UInt8(clamping: shown)
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
    public func applyGatewayStatus(gateway: String, status: GatewayStatus) {
        counters.gatewayStatuses += 1
        if gateways.noteStatus(gateway: gateway, online: status.state == .online) { counters.sequenceResets += 1 }
        guard let g = venue.topology.gatewayIndex(id: gateway) else { return }
        switch status.state {
        case .online:
            gateways.online[g] = true
        case .offline:
            gateways.online[g] = false
            for client in gateways.tables[g].clients {
                guard table.records[Int(client)] != nil else { continue }
                let covers = table.records[Int(client)]!.coverCount
                table.records[Int(client)]!.coverCount = covers > 0 ? covers - 1 : 0
            }
            gateways.tables[g].removeAll()
        }
    }
}
