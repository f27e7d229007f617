import Topology

/// What the engine knows of each gateway: which clients its recent windows contained (with their
/// consecutive misses, the evidence of a departure), whether it is online, and the last sequence
/// number applied from it (a repeated or older batch is a duplicate).
struct GatewayCoverage {
    /// Per gateway index (the topology's): clients its recent windows contained.
    var tables: [CoverageTable]
    /// Per gateway index: whether its status says it is up (an offline gateway vouches for no one).
    var online: [Bool]
    /// The last batch applied, by gateway id (also for gateways the topology does not list).
    var lastSeq: [String: UInt64] = [:]

    /// Coverage for `count` gateways, all online.
    init(count: Int) {
        tables = Array(repeating: CoverageTable(), count: count)
        online = Array(repeating: true, count: count)
    }

    /// Whether a batch `seq` from `gateway` is new; records it when it is. `missed` counts the
    /// sequence numbers skipped since the last one.
    mutating func accept(gateway: String, seq: UInt64, missed: inout UInt64) -> Bool {
        if let last = lastSeq[gateway] {
            if seq <= last { return false }
            if seq > last + 1 { missed += seq - last - 1 }
        }
        lastSeq[gateway] = seq
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
        result.lastSeq = lastSeq
        return result
    }
}
