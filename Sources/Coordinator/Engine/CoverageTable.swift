/// The clients one gateway's recent windows contained, each with its consecutive misses.
///
/// This is touched for every sighting and scanned for every window, so it is an open-addressing
/// table (linear probing, backward-shift deletion) keyed by client index: the keys are small
/// integers the engine assigns itself (never chosen by a sender), so a multiplicative hash is
/// enough and nothing goes through `Hasher`. Unlike a `Dictionary`, the miss counts can be
/// advanced in place while scanning, without copying the table.
struct CoverageTable: Sendable {
    /// Client index per slot; `-1` marks an empty slot.
    private var keys: [Int32] = []
    private var values: [UInt8] = []
    /// 64 − log2(capacity).
    private var shift: UInt64 = 64
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    private func home(_ key: Int32) -> Int {
        Int(truncatingIfNeeded: (UInt64(UInt32(bitPattern: key)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    @inline(__always)
    private func find(_ key: Int32) -> (slot: Int, found: Bool) {
        let mask = keys.count - 1
        var i = home(key)
        while true {
            let k = keys[i]
            if k == key { return (i, true) }
            if k < 0 { return (i, false) }
            i = (i + 1) & mask
        }
    }

    /// The misses of `key`, or `nil` when this gateway does not cover it.
    func value(forKey key: Int32) -> UInt8? {
        guard count > 0 else { return nil }
        let (slot, found) = find(key)
        return found ? values[slot] : nil
    }

    /// Sets the misses of `key`; returns the previous value (`nil`: it was not covered).
    @inline(__always)
    @discardableResult
    mutating func updateValue(_ value: UInt8, forKey key: Int32) -> UInt8? {
        precondition(key >= 0)
        if (count + 1) * 2 > keys.count { grow() }
        let (slot, found) = find(key)
        if found {
            let old = values[slot]
            values[slot] = value
            return old
        }
        keys[slot] = key
        values[slot] = value
        count += 1
        return nil
    }

    /// Removes `key`; returns its misses (`nil`: it was not covered).
    @discardableResult
    mutating func removeValue(forKey key: Int32) -> UInt8? {
        guard count > 0 else { return nil }
        let (slot, found) = find(key)
        guard found else { return nil }
        let old = values[slot]
        let mask = keys.count - 1
        // Backward-shift deletion: pull later members of the probe run into the hole.
        var hole = slot
        var j = slot
        while true {
            j = (j + 1) & mask
            let k = keys[j]
            if k < 0 { break }
            let h = home(k)
            // Stays when its home lies cyclically in (hole, j].
            let stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if stays { continue }
            keys[hole] = k
            values[hole] = values[j]
            hole = j
        }
        keys[hole] = -1
        count -= 1
        return old
    }

    /// Forgets every client.
    mutating func removeAll() {
        keys = []
        values = []
        shift = 64
        count = 0
    }

    /// Every covered client with its misses (in slot order).
    func forEach(_ body: (_ client: Int32, _ misses: UInt8) -> Void) {
        for i in keys.indices where keys[i] >= 0 { body(keys[i], values[i]) }
    }

    /// The covered clients (in slot order).
    var clients: [Int32] {
        var out: [Int32] = []
        out.reserveCapacity(count)
        for k in keys where k >= 0 { out.append(k) }
        return out
    }

    /// One window of this gateway ended: every covered client not heard in it (`seen[client] !=
    /// stamp`) misses once more; those reaching `limit` are appended to `departed` (and left
    /// unchanged here, for the caller to remove).
    mutating func advanceMisses(seen: UnsafeBufferPointer<UInt32>, stamp: UInt32, limit: Int, departed: inout [Int32]) {
        guard count > 0 else { return }
        keys.withUnsafeBufferPointer { keys in
            values.withUnsafeMutableBufferPointer { values in
                for i in 0..<keys.count {
                    let client = keys[i]
                    guard client >= 0, seen[Int(client)] != stamp else { continue }
                    let next = values[i] &+ 1
                    if Int(next) >= limit {
                        departed.append(client)
                    } else {
                        values[i] = next
                    }
                }
            }
        }
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        let capacity = Swift.max(16, oldKeys.count * 2)
        keys = Array(repeating: -1, count: capacity)
        values = Array(repeating: 0, count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        for i in oldKeys.indices where oldKeys[i] >= 0 {
            let (slot, _) = find(oldKeys[i])
            keys[slot] = oldKeys[i]
            values[slot] = oldValues[i]
        }
    }
}
