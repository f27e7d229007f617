/// Rendezvous (highest random weight) hashing: the owner of a partition is the live member whose
/// weight for it is highest. Every member computes the same owner from the same live set, with no
/// coordinator of coordinators, and when a member leaves or joins only the partitions it owned
/// (or now wins) move.
public enum Rendezvous {
    /// The weight of `member` for `partition`: FNV-1a over both, then a 64-bit finaliser, so
    /// weights are stable across processes, machines and runs (no per-process hash seed).
    public static func weight(member: String, partition: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in member.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash = (hash ^ 0xff) &* 0x0000_0100_0000_01b3  // a separator no UTF-8 text holds
        for byte in partition.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash
    }

    /// The owner of `partition` among `members` (`nil` when there are none); equal weights go to the
    /// greater id, so the answer never depends on the order `members` come in.
    public static func owner(of partition: String, among members: some Sequence<String>) -> String? {
        var best: (weight: UInt64, member: String)?
        for member in members {
            let weight = weight(member: member, partition: partition)
            if let current = best, (current.weight, current.member) >= (weight, member) { continue }
            best = (weight, member)
        }
        return best?.member
    }
}
