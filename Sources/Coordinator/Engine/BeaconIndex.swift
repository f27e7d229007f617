import BeaconKit

/// The client slot of each beacon identity the coordinator tracks: an open-addressing hash table
/// (linear probing, at most half full, backward-shift removal) keyed by the packed identity.
///
/// Every sighting of every gateway window is looked up here. `[BeaconIdentity: Int32]` hashed the
/// identity's five fields through SipHash (`Hasher`) on each lookup, about a tenth of the pinned
/// coordinator's core; this folds the words into one with two multiplications and a per-table
/// random seed (so a crafted set of advertised identities cannot be aimed at one probe run), and
/// keeps key and slot side by side in one array.
struct BeaconIndex: ExpressibleByDictionaryLiteral {
    private struct Entry {
        var key: BeaconIdentity
        /// The client's slot; `-1` marks an empty entry (slots are never negative).
        var value: Int32
    }

    private static let empty = Entry(key: BeaconIdentity(high: 0, low: 0, major: 0, minor: 0, kind: .address), value: -1)

    /// Capacity is 0 or a power of two.
    private var entries: [Entry] = []
    private var seed: UInt64 = 0
    /// Identities stored.
    private(set) var count = 0
    /// Moves on whenever an identity stored here is removed or given another slot (not when one is
    /// added): a slot found for an identity at one version is still its slot at the same version
    /// (see ``RecalledWindow``).
    private(set) var version: UInt64 = 0

    init() {}

    init(dictionaryLiteral elements: (BeaconIdentity, Int32)...) {
        for (key, value) in elements { self[key] = value }
    }

    /// The slot of `key`, or `nil`; setting `nil` removes it. Slots must be non-negative.
    subscript(key: BeaconIdentity) -> Int32? {
        @inline(__always) get {
            guard count > 0 else { return nil }
            return entries.withUnsafeBufferPointer { entries -> Int32? in
                let mask = entries.count - 1
                var i = bucket(key, mask: mask)
                while true {
                    let entry = entries[i]
                    if entry.value < 0 { return nil }
                    if entry.key == key { return entry.value }
                    i = (i + 1) & mask
                }
            }
        }
        set {
            if let newValue {
                precondition(newValue >= 0, "BeaconIndex holds non-negative slots only")
                insert(key, newValue)
            } else {
                remove(key)
            }
        }
    }

    /// The identity's home bucket: its words folded by multiplication (the high half of the
    /// 128-bit product mixes every input bit), then the top bits of a Fibonacci product.
    @inline(__always)
    private func bucket(_ key: BeaconIdentity, mask: Int) -> Int {
        let tail = UInt64(key.major) << 24 | UInt64(key.minor) << 8 | UInt64(key.kind.rawValue)
        let a = (key.high ^ seed).multipliedFullWidth(by: key.low ^ 0x9E37_79B9_7F4A_7C15)
        let b = (tail ^ seed ^ 0xC2B2_AE3D_27D4_EB4F).multipliedFullWidth(by: a.high ^ a.low ^ 0x1656_67B1_9E37_79F9)
        let folded = (b.high ^ b.low) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: folded >> 32) & mask
    }

    private mutating func insert(_ key: BeaconIdentity, _ value: Int32) {
        if entries.isEmpty {
            var generator = SystemRandomNumberGenerator()
            seed = generator.next()
            entries = Array(repeating: Self.empty, count: 16)
        } else if (count + 1) * 2 > entries.count {
            grow()
        }
        let mask = entries.count - 1
        var i = bucket(key, mask: mask)
        while entries[i].value >= 0 {
            if entries[i].key == key {
                if entries[i].value != value { version &+= 1 }
                entries[i].value = value
                return
            }
            i = (i + 1) & mask
        }
        entries[i] = Entry(key: key, value: value)
        count += 1
    }

    private mutating func grow() {
        let old = entries
        entries = Array(repeating: Self.empty, count: old.count * 2)
        let mask = entries.count - 1
        for entry in old where entry.value >= 0 {
            var i = bucket(entry.key, mask: mask)
            while entries[i].value >= 0 { i = (i + 1) & mask }
            entries[i] = entry
        }
    }

    /// Removes `key` and shifts back the entries after it that would otherwise be unreachable (no
    /// tombstones, so lookups never walk over removed entries).
    private mutating func remove(_ key: BeaconIdentity) {
        guard count > 0 else { return }
        let mask = entries.count - 1
        var i = bucket(key, mask: mask)
        while true {
            if entries[i].value < 0 { return }
            if entries[i].key == key { break }
            i = (i + 1) & mask
        }
        var hole = i
        var j = (i + 1) & mask
        while entries[j].value >= 0 {
            let home = bucket(entries[j].key, mask: mask)
            // entries[j] may move into the hole when its home is not within (hole, j] cyclically.
            if (j &- home) & mask >= (j &- hole) & mask {
                entries[hole] = entries[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        entries[hole] = Self.empty
        count -= 1
        version &+= 1
    }
}
