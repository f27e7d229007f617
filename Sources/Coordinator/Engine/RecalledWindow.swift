import BeaconKit

/// The identities of a gateway's last window, in the window's order, with the client slot each
/// resolved to: the next window of the same gateway finds its clients by walking it instead of
/// looking every sighting up in ``BeaconIndex``.
///
/// A gateway hears mostly the same beacons from one window to the next, and the agent writes a
/// window's sightings sorted by identity, so the next window's sightings mostly come in the same
/// order. Walking the last one is a sequential read; the index is a table of every tracked
/// identity, looked up at random, and that lookup was the first load of a cold line for nearly
/// every sighting (a fifth of `applySightings`' samples in the pinned end-to-end benchmark).
///
/// A recalled slot is used only while the index is at the ``version`` it was found at (no identity
/// removed or moved since), so it is always the slot the index would answer. Sightings that were
/// not clients (region beacons, identities the venue's policy refused) are recalled as `-1` and
/// take the full path each time.
struct RecalledWindow {
    /// The window's identities, in its order.
    var keys: [BeaconIdentity] = []
    /// The client slot of each of `keys`, `-1` where it was none.
    var slots: [Int32] = []
    /// ``BeaconIndex/version`` when the slots were found; `nil` when they may be stale.
    var version: UInt64?

    /// How far past the walk's position an identity is looked for: a window that lost a few
    /// beacons since the last one still lines up; one that gained some takes the full path for
    /// those and lines up again after them.
    static let lookahead = 4

    /// The slot recalled for `key` when it is among the next ``lookahead`` identities from `cursor`
    /// and was a client; `cursor` then moves past it. `nil` (cursor unchanged when `key` is not
    /// there) sends the sighting the full way.
    @inline(__always)
    func slot(of key: BeaconIdentity, cursor: inout Int) -> Int32? {
        let end = min(keys.count, cursor + Self.lookahead)
        var i = cursor
        while i < end {
            if keys[i] == key {
                cursor = i + 1
                let slot = slots[i]
                return slot >= 0 ? slot : nil
            }
            i += 1
        }
        return nil
    }
}
