import BeaconKit
import Foundation
import Planner
import Topology
import WireProtocol

/// The client table's entries as the engine creates, merges, restores and places them.
extension CoordinatorEngine {
    // MARK: - Clients

    /// Runs `body` on the record of the client `id`, taken out of the table while `body` runs
    /// (its slot is empty meanwhile) and put back after; `nil` when the client is not known.
    func withClient<Result>(_ id: String, _ body: (inout ClientRecord) -> Result) -> Result? {
        guard let index = table.index(of: id), var record = table.take(index) else { return nil }
        defer { table[index] = record }
        return body(&record)
    }

    /// A phone declared `key` as the identity it advertises: sightings of it now locate the phone.
    /// A tag record created earlier from those sightings is merged into the phone and forgotten;
    /// a phone not yet located starts where the tag was estimated (the tag's evidence is already
    /// used, so without it the phone would wait for the gateways' next window to be planned).
    func adopt(beacon key: BeaconIdentity, for index: Int32) {
        if let existing = table.index(of: key), existing != index, let tag = table[existing], !tag.isPhone {
            table[index]!.observations.append(contentsOf: tag.observations)
            if table[index]!.location == nil, let location = tag.location {
                table[index]!.location = location
                table[index]!.confidence = tag.confidence
                table[index]!.estimatedAt = tag.estimatedAt
            }
            for g in gateways.tables.indices {
                if let misses = gateways.tables[g].removeValue(forKey: existing) {
                    if gateways.tables[g].updateValue(misses, forKey: index) == nil { table[index]!.coverCount &+= 1 }
                }
            }
            remove(existing)
            if !tag.version.isFirst || !tag.regions.isEmpty { outbox.publish(.clearRegions(client: tag.id)) }
        }
        table.link(key, to: index)
    }

    func restore(_ stored: StoredClient) {
        var record = ClientRecord(id: stored.id)
        record.version = RegionsVersion(stored.version)
        record.regions = stored.regions.compactMap { venue.topology.regionIndex(id: $0).map(Int32.init) }
        record.vanished = stored.regions.filter { venue.topology.regionIndex(id: $0) == nil }
        if !record.vanished.isEmpty {
            record.forcePlan = true
            record.reason = .topology
        }
        record.lastSeen = stored.lastSeen
        record.persistedSeen = stored.lastSeen
        record.isPhone = stored.isPhone
        // 0 is stored for "not stated" (a phone that stated 0 states it again in its next report).
        if stored.budget > 0 { record.budget = SlotLimit(clamping: stored.budget) }
        if let position = stored.position, let level = venue.estimator.levelIndex(of: position.level) {
            let point = VenuePoint(x: position.x, y: position.y, level: position.level)
            let confidence = position.confidence ?? 5
            record.location = PositionState(
                x: point.x, y: point.y, variance: confidence * confidence, time: Milliseconds.stateTime(stored.lastSeen), level: level)
            record.confidence = confidence
            record.plannedAt = point
            record.movedAt = point
        }
        let index = table.insert(record)
        if let text = stored.beacon, let key = BeaconIdentity(storageText: text) { table.link(key, to: index) }
        if record.forcePlan { dirty.mark(index) }
    }

    /// Where the coordinator believes the client is, as the wire says it.
    func position(_ record: ClientRecord) -> Position? {
        guard let location = record.location else { return nil }
        let level = venue.level(of: location)
        return Position(
            x: (location.x * 100).rounded() / 100, y: (location.y * 100).rounded() / 100, level: level,
            confidence: (record.confidence * 100).rounded() / 100,
            room: record.presence.room.map { venue.topology.areas[$0].displayName })
    }
}
