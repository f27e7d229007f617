import Topology

/// What the engine knows of each gateway: which clients its recent windows contained (with their
/// consecutive misses, the evidence of a departure), whether it is online, and the last sequence
/// number applied from it (a repeated or older batch is a duplicate).
struct GatewayCoverage {
    /// Per gateway index (the topology's): clients its recent windows contained.
    var tables: [CoverageTable]
    /// Per gateway index: whether its status says it is up (an offline gateway vouches for no one).
    var online: [Bool]
    /// Per gateway index: its last window's identities and their clients, for the next window's
    /// lookups. Not carried into a reloaded venue (``remapped(from:to:)``): its region beacons
    /// and policy may differ.
    var recalled: [RecalledWindow]
    /// The last batch applied, by gateway id (also for gateways the topology does not list).
    var lastBatch: [String: AppliedBatch] = [:]
    /// Gateways whose last status was `offline` (by id).
    var announcedOffline: Set<String> = []

    /// The sequence number and epoch of the last batch applied from a gateway.
    struct AppliedBatch {
        var seq: UInt64
        var epoch: UInt64?
    }

    /// Coverage for `count` gateways, all online.
    init(count: Int) {
        tables = Array(repeating: CoverageTable(), count: count)
        online = Array(repeating: true, count: count)
        recalled = Array(repeating: RecalledWindow(), count: count)
    }

    /// Whether a batch `seq` (of spool `epoch`) from `gateway` is new; records it when it is.
    /// `missed` counts the sequence numbers skipped since the last one. A batch whose epoch
    /// differs from the last one's starts a new run of sequence numbers (the gateway's spool is
    /// new: wiped, re-imaged, replaced), counted in `resets`; a batch without an epoch is checked
    /// against the last `seq` alone.
    mutating func accept(gateway: String, seq: UInt64, epoch: UInt64?, missed: inout UInt64, resets: inout UInt64) -> Bool {
        if let last = lastBatch[gateway] {
            if let epoch, epoch != last.epoch {
                resets += 1
            } else {
                if seq <= last.seq { return false }
                if seq > last.seq + 1 { missed += seq - last.seq - 1 }
            }
        }
        lastBatch[gateway] = AppliedBatch(seq: seq, epoch: epoch ?? lastBatch[gateway]?.epoch)
        return true
    }

    /// Notes a gateway's status. An `online` status after an `offline` one resets the duplicate
    /// check of a gateway whose batches carry no epoch (an older agent: a wiped spool is its only
    /// way back); a gateway with epochs keeps it, so the batches a restarted agent re-sends are
    /// still recognised (its new epoch, when its spool is new, resets it). Returns whether it reset.
    mutating func noteStatus(gateway: String, online: Bool) -> Bool {
        guard online else {
            announcedOffline.insert(gateway)
            return false
        }
        guard announcedOffline.remove(gateway) != nil, let last = lastBatch[gateway], last.epoch == nil else { return false }
        lastBatch[gateway] = nil
        return true
    }

    /// Forgets `client` everywhere (it was removed).
    mutating func forget(_ client: Int32) {
        for g in tables.indices { tables[g].removeValue(forKey: client) }
    }

    /// The same coverage for a reloaded venue: tables follow their gateway's id into `topology`'s
    /// indices; every gateway starts online.
    func remapped(from old: Topology, to topology: Topology) -> GatewayCoverage {
        var result = GatewayCoverage(count: topology.gateways.count)
        for (g, gateway) in old.gateways.enumerated() {
            if let n = topology.gatewayIndex(id: gateway.id) { result.tables[n] = tables[g] }
        }
        result.lastBatch = lastBatch
        result.announcedOffline = announcedOffline
        return result
    }
}
