import BeaconKit
import Topology
import WireProtocol

/// Every client the engine knows, in slots that indices keep pointing at: a record per slot (a
/// freed slot is reused), and the lookups by client id and by the beacon identity gateways hear.
///
/// The table owns its records and both lookups and keeps them in step: creating, removing and
/// linking an identity to a client go through it. A client's index is its slot, stable while the
/// client lives.
struct ClientTable {
    /// The records by index; `nil` in a free slot.
    private var records: [ClientRecord?] = []
    /// Slots freed by removals, reused first.
    private var freeSlots: [Int32] = []
    /// Index by client id.
    private var byID: [String: Int32] = [:]
    /// Index by the identity a client advertises (a tag, or a phone that declared one); looked up
    /// for every sighting, so an open-addressing table rather than a `Dictionary`.
    private var byBeacon = BeaconIndex()

    /// Clients known now.
    var count: Int { byID.count }

    /// Slots in use or free: every index is below it.
    var slotCount: Int { records.count }

    /// The ids of every client known now.
    var ids: Dictionary<String, Int32>.Keys { byID.keys }

    /// The index of the client `id`, when known.
    func index(of id: String) -> Int32? { byID[id] }

    /// The index of the client sightings of `beacon` locate, when known.
    func index(of beacon: BeaconIdentity) -> Int32? { byBeacon[beacon] }

    /// The record at `index` (`nil`: a free slot), read or changed in place.
    subscript(index: Int32) -> ClientRecord? {
        @inline(__always) _read { yield records[Int(index)] }
        @inline(__always) _modify { yield &records[Int(index)] }
    }

    /// The record of the client `id`, when known.
    subscript(id id: String) -> ClientRecord? {
        byID[id].flatMap { records[Int($0)] }
    }

    /// The occupied slots, in index order.
    var indices: [Int32] {
        records.indices.compactMap { records[$0] == nil ? nil : Int32($0) }
    }

    /// Every record, in index order.
    var all: some Sequence<ClientRecord> { records.lazy.compactMap { $0 } }

    /// Takes the record at `index` out of its slot (`nil` is left there) so that the caller is the
    /// only owner of its arrays while it changes them; the subscript puts it back. A copy beside
    /// the slot's would copy each array on its first write.
    @inline(__always)
    mutating func take(_ index: Int32) -> ClientRecord? { records[Int(index)].take() }

    /// The index of the client `id`, created (last seen `now`) when it is new.
    mutating func client(forID id: String, now: Int64) -> Int32 {
        if let index = byID[id] { return index }
        var record = ClientRecord(id: id)
        record.lastSeen = now
        return insert(record)
    }

    /// The index of the client sightings of `key` locate: the one it is linked to, else the client
    /// whose id it is (linked now), else a new tag (last seen `now`).
    mutating func client(forBeacon key: BeaconIdentity, now: Int64) -> Int32 {
        if let index = byBeacon[key] { return index }
        let id = key.clientIdentifier
        if let index = byID[id] {
            byBeacon[key] = index
            return index
        }
        var record = ClientRecord(id: id)
        record.beacon = key
        record.lastSeen = now
        let index = insert(record)
        byBeacon[key] = index
        return index
    }

    /// Stores `record` in a free slot or a new one and indexes its id (its beacon: ``link(_:to:)``);
    /// returns its index.
    mutating func insert(_ record: ClientRecord) -> Int32 {
        let index: Int32
        if let free = freeSlots.popLast() {
            index = free
            records[Int(index)] = record
        } else {
            index = Int32(records.count)
            records.append(record)
        }
        byID[record.id] = index
        return index
    }

    /// Frees `index`'s slot and forgets its lookups; returns the record it held.
    @discardableResult
    mutating func remove(_ index: Int32) -> ClientRecord? {
        guard let record = records[Int(index)] else { return nil }
        byID[record.id] = nil
        if let beacon = record.beacon, byBeacon[beacon] == index { byBeacon[beacon] = nil }
        records[Int(index)] = nil
        freeSlots.append(index)
        return record
    }

    /// Sightings of `beacon` now locate the client at `index`, which advertises it; the identity it
    /// advertised before (if another) no longer does.
    mutating func link(_ beacon: BeaconIdentity, to index: Int32) {
        if let old = records[Int(index)]!.beacon, old != beacon, byBeacon[old] == index { byBeacon[old] = nil }
        records[Int(index)]!.beacon = beacon
        byBeacon[beacon] = index
    }

    /// Runs `body` on the records in place: one exclusivity check for a whole batch.
    @inline(__always)
    mutating func withRecords<Result>(_ body: (UnsafeMutableBufferPointer<ClientRecord?>) -> Result) -> Result {
        records.withUnsafeMutableBufferPointer { body($0) }
    }

    /// Resolves each of a gateway window's `sightings` to its client's index, in order, into
    /// `window.indices` (`-1`: none), and notes the window's identities for the next one
    /// (``RecalledWindow``).
    ///
    /// An identity is looked for in `recall` (the gateway's last window) first, then among the
    /// venue's region beacons (handed to `regionBeacon` with the sighting's position; not a
    /// client), then among known clients; a new one becomes a client when the venue's
    /// ``Topology/ClientPolicy`` admits it (always, without a policy), and is otherwise counted in
    /// `refused`. Region beacons are counted in `refused.region` too.
    mutating func resolve(
        _ sightings: [DecodedSighting], recalling recall: RecalledWindow, venue: CoordinatorVenue, now: Int64,
        into window: inout RecalledWindow, refused: inout AdmissionCounts, regionBeacon: (_ sighting: Int, _ region: Int32) -> Void
    ) {
        let regionByBeacon = venue.regionByBeacon
        let checkRegions = !regionByBeacon.isEmpty
        let regionIDs = venue.regionBeaconIDs
        let policy = venue.topology.clientPolicy
        let recalls = recall.version == byBeacon.version
        let versionBefore = byBeacon.version
        var cursor = 0
        var regionBeacons: UInt64 = 0
        for i in sightings.indices {
            let key = sightings[i].key
            window.keys.append(key)
            if recalls, let slot = recall.slot(of: key, cursor: &cursor) {
                window.slots.append(slot)
                continue
            }
            if checkRegions, regionIDs.mayContain(key), let region = regionByBeacon[key] {
                regionBeacons += 1
                regionBeacon(i, region)
                window.slots.append(-1)
                continue
            }
            if let index = byBeacon[key] {
                window.slots.append(index)
                continue
            }
            if let policy {
                switch policy.verdict(for: key, address: sightings[i].address) {
                case .client: break
                case .venue:
                    refused.venue += 1
                    window.slots.append(-1)
                    continue
                case .unlisted:
                    refused.unlisted += 1
                    window.slots.append(-1)
                    continue
                }
            }
            window.slots.append(client(forBeacon: key, now: now))
        }
        refused.region = regionBeacons
        // A new client whose slot moved an identity (an index change in the loop) leaves nothing
        // recalled: the slots found before it may be stale.
        window.version = byBeacon.version == versionBefore ? versionBefore : nil
    }
}
