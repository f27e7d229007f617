import BeaconKit
import Foundation
import Planner
import Topology
import WireProtocol

/// The client table's entries as the engine creates, merges, restores and places them.
extension CoordinatorEngine {
    // MARK: - Clients

    func clientIndex(forID id: String, now: Int64) -> Int32 {
        if let index = table.byID[id] { return index }
        var record = ClientRecord(id: id)
        record.lastSeen = now
        return insert(record)
    }

    @inline(__always)
    func clientIndex(forBeacon key: BeaconIdentity, now: Int64) -> Int32 {
        if let index = table.byBeacon[key] { return index }
        let id = key.clientIdentifier
        if let index = table.byID[id] {
            table.byBeacon[key] = index
            return index
        }
        var record = ClientRecord(id: id)
        record.beacon = key
        record.lastSeen = now
        let index = insert(record)
        table.byBeacon[key] = index
        return index
    }

    func insert(_ record: ClientRecord) -> Int32 {
        let (index, appended) = table.insert(record)
        if appended { seenStamp.append(0) }
        return index
    }

    /// A phone declared `key` as the identity it advertises: sightings of it now locate the phone.
    /// A tag record created earlier from those sightings is merged into the phone and forgotten;
    /// a phone not yet located starts where the tag was estimated (the tag's evidence is already
    /// used, so without it the phone would wait for the gateways' next window to be planned).
    func adopt(beacon key: BeaconIdentity, for index: Int32, now: Int64) {
        if let existing = table.byBeacon[key], existing != index, let tag = table.records[Int(existing)], !tag.isPhone {
            table.records[Int(index)]!.observations.append(contentsOf: tag.observations)
            if table.records[Int(index)]!.location == nil, let location = tag.location {
                table.records[Int(index)]!.location = location
                table.records[Int(index)]!.confidence = tag.confidence
                table.records[Int(index)]!.estimatedAt = tag.estimatedAt
            }
            for g in gateways.tables.indices {
                if let misses = gateways.tables[g].removeValue(forKey: existing) {
                    if gateways.tables[g].updateValue(misses, forKey: index) == nil { table.records[Int(index)]!.coverCount &+= 1 }
                }
            }
            remove(existing)
            outputs.append(.clearRegions(client: tag.id))
        }
        if let old = table.records[Int(index)]!.beacon, old != key, table.byBeacon[old] == index { table.byBeacon[old] = nil }
        table.records[Int(index)]!.beacon = key
        table.byBeacon[key] = index
    }

    func restore(_ stored: StoredClient) {
        var record = ClientRecord(id: stored.id)
        record.version = stored.version
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
        if stored.budget > 0 { record.budget = UInt8(clamping: stored.budget) }
        if let position = stored.position, let level = venue.estimator.levelIndex(of: position.level) {
            let point = VenuePoint(x: position.x, y: position.y, level: position.level)
            let confidence = position.confidence ?? 5
            record.location = PositionState(
                x: point.x, y: point.y, variance: confidence * confidence, time: Self.stateTime(stored.lastSeen), level: level)
            record.confidence = confidence
            record.plannedAt = point
            record.movedAt = point
        }
        let index = insert(record)
        if let text = stored.beacon, let key = BeaconIdentity(storageText: text) {
            table.records[Int(index)]!.beacon = key
            table.byBeacon[key] = index
        }
        if record.forcePlan {
            table.records[Int(index)]!.dirty = true
            dirtyClients.append(index)
        }
    }

    /// Where the coordinator believes the client is, as the wire says it.
    func position(_ record: ClientRecord) -> Position? {
        guard let location = record.location else { return nil }
        let level = venue.level(of: location)
        return Position(
            x: (location.x * 100).rounded() / 100, y: (location.y * 100).rounded() / 100, level: level,
            confidence: (record.confidence * 100).rounded() / 100,
            room: venue.topology.roomName(at: VenuePoint(x: location.x, y: location.y, level: level)))
    }

    /// Milliseconds since 1970 as the estimator's clock (seconds since the reference date), and back.
    @inline(__always) static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    @inline(__always) static func stateTime(_ milliseconds: Int64) -> Double { date(milliseconds).timeIntervalSinceReferenceDate }
    @inline(__always) static func milliseconds(_ stateTime: Double) -> Int64 {
        Int64((Date(timeIntervalSinceReferenceDate: stateTime).timeIntervalSince1970 * 1000).rounded())
    }
}
