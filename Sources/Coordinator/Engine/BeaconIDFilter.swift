import BeaconKit
import Foundation
import Planner
import Topology
import WireProtocol

/// The distinct 16-byte ids (`high`, `low`, kind) among a set of beacon keys, when there are few
/// (a venue's region beacons usually share one UUID): a key whose id is not among them cannot be
/// in the set, so the hashed lookup can be skipped. With many ids it answers "maybe" to everything.
struct BeaconIDFilter: Sendable {
    private var ids: [(high: UInt64, low: UInt64, kind: BeaconIdentity.Kind)] = []
    private var everything = false

    init(_ keys: some Sequence<BeaconIdentity>) {
        for key in keys where !ids.contains(where: { $0.high == key.high && $0.low == key.low && $0.kind == key.kind }) {
            ids.append((key.high, key.low, key.kind))
            if ids.count > 8 {
                everything = true
                ids = []
                return
            }
        }
    }

    /// `false` only when no key of the set has `key`'s id.
    @inline(__always)
    func mayContain(_ key: BeaconIdentity) -> Bool {
        if everything { return true }
        for id in ids where id.high == key.high && id.low == key.low && id.kind == key.kind { return true }
        return false
    }
}
