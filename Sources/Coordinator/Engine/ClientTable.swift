import BeaconKit

/// Every client the engine knows, in slots that indices keep pointing at: a record per slot (a
/// freed slot is reused), and the lookups by client id and by the beacon identity gateways hear.
struct ClientTable {
    /// The records by index; `nil` in a free slot.
    var records: [ClientRecord?] = []
    /// Slots freed by removals, reused first.
    var freeSlots: [Int32] = []
    /// Index by client id.
    var byID: [String: Int32] = [:]
    /// Index by the identity a client advertises (a tag, or a phone that declared one); looked up
    /// for every sighting, so an open-addressing table rather than a `Dictionary`.
    var byBeacon = BeaconIndex()

    /// Clients known now.
    var count: Int { byID.count }

    /// Stores `record` in a free slot or a new one; returns its index and whether the slot is new.
    mutating func insert(_ record: ClientRecord) -> (index: Int32, appended: Bool) {
        let index: Int32
        let appended: Bool
        if let free = freeSlots.popLast() {
            index = free
            records[Int(index)] = record
            appended = false
        } else {
            index = Int32(records.count)
            records.append(record)
            appended = true
        }
        byID[record.id] = index
        return (index, appended)
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
}
