/// A client's `regions` version: the one rule every version the coordinator publishes follows.
///
/// A phone's version must never go back or repeat (RegionSync ignores a version not greater than
/// the one it applied), also when the coordinator lost the client's history: after the record
/// expired (`idleTimeout`), after a restart without `--state`, with the state file lost, or when
/// another member of partitioned coordinators published for the client meanwhile. So:
///
/// - a client without history starts at the wall clock in milliseconds since 1970 (`now`);
/// - each change adds 1;
/// - after a handover (``handOver()``, ``adopt(_:)``: another member may have published sets that
///   have not arrived here yet) the next is the larger of that and the clock: a jump.
///
/// Each start lies above every version published before it as long as the coordinators together
/// published less than one version per millisecond for the client and the clock did not go back
/// (docs/wire.md, *Versions*). A phone takes any jump as "converge to the whole set"; only a step
/// back would be ignored.
struct RegionsVersion: Equatable {
    /// The last version published or adopted; 0: none yet.
    private(set) var current: UInt64
    /// Whether another member may have published since ``current``: the next version jumps to the clock.
    private(set) var handedOver: Bool

    /// The version of a client with `current` published (0: none), no handover pending.
    init(_ current: UInt64 = 0) {
        self.current = current
        self.handedOver = false
    }

    /// Whether no version was published yet (the next is the client's first: `initial`).
    var isFirst: Bool { current == 0 }

    /// Moves to the version to publish now (`now`: milliseconds since 1970) and returns it.
    mutating func advance(now: Int64) -> UInt64 {
        let clock = UInt64(max(1, now))
        let next = current == 0 ? clock : current + 1
        current = handedOver ? max(next, clock) : next
        handedOver = false
        return current
    }

    /// Another member published `version` for the client: when it is newer, it becomes this
    /// client's, and the next version continues from the clock (sets of that member's may still be
    /// on their way). Returns whether it was newer.
    mutating func adopt(_ version: UInt64) -> Bool {
        guard version > current else { return false }
        current = version
        handedOver = true
        return true
    }

    /// The client's partition was gained: another member may have published since, so the next
    /// version continues from the clock.
    mutating func handOver() { handedOver = true }
}
