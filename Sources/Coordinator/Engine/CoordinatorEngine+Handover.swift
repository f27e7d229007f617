import Foundation
public import WireProtocol

/// Partitioned coordinators: continuing a client's version from the `regions` message another
/// member published (the retained one read on subscribing, or live ones), so a new owner's first
/// set is the previous owner's version + 1, its diff against the set the phone holds.
extension CoordinatorEngine {
    /// The last version decided here for `client` (0: none).
    public func version(of client: String) -> UInt64 {
        guard let index = table.byID[client] else { return 0 }
        return table.records[Int(index)]?.version ?? 0
    }

    /// Another member published `message` for `client`: when it is newer than what this engine
    /// decided, the client's version and set become its own (its position and evidence stay: the
    /// next report or sightings bring fresh ones). Creates the record when the client is new here.
    public func adoptPublished(client: String, message: RegionsMessage, now: Int64) {
        let index = clientIndex(forID: client, now: now)
        guard var record = table.records[Int(index)], message.version > record.version else { return }
        record.version = message.version
        record.regions = message.regions.compactMap { venue.topology.regionIndex(id: $0.id).map(Int32.init) }
        record.inside.removeAll { !record.regions.contains($0) }
        record.answered = nil
        record.reconcileFrom = nil
        record.needsPersist = true
        persistPending.append(index)
        table.records[Int(index)] = record
    }
}
