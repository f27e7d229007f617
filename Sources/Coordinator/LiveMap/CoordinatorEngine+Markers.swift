import Foundation
public import LiveMap
import Topology
public import WireProtocol

/// What the live map reads from the engine: every client as a marker, the ones changed since the
/// last call, the gateways' state, and the client list with filter and paging.
extension CoordinatorEngine {
    /// Every client known now, as the map draws it.
    public func markers() -> [ClientMarker] {
        table.all.map(marker)
    }

    /// The markers of the clients at `indices` that still exist.
    public func markers(of indices: [Int32]) -> [ClientMarker] {
        indices.compactMap { index in table[index].map(marker) }
    }

    /// The ids of the clients at `indices` that still exist.
    func ids(of indices: [Int32]) -> [String] {
        indices.compactMap { index in table[index]?.id }
    }

    func marker(_ record: ClientRecord) -> ClientMarker {
        ClientMarker(
            id: record.id, kind: record.isPhone ? "phone" : "tag", position: position(record), present: record.present,
            lastSeen: record.lastSeen, version: record.version.current, wakeable: record.wakeability)
    }

    /// Every gateway of the topology, online or not (by its retained status).
    public var gatewayMarkers: [GatewayMarker] {
        venue.topology.gateways.enumerated().map { g, gateway in
            GatewayMarker(id: gateway.id, online: g < gateways.online.count ? gateways.online[g] : true)
        }
    }

    /// The clients `query` selects, by id, and how many it selects in all.
    public func clients(_ query: ClientQuery) -> (total: Int, page: [ClientSnapshot]) {
        var selected: [ClientRecord] = []
        for record in table.all {
            if let kind = query.kind, record.isPhone != (kind == .phone) { continue }
            if let present = query.present, record.present != present { continue }
            if let level = query.level {
                guard let location = record.location, venue.level(of: location) == level else { continue }
            }
            selected.append(record)
        }
        selected.sort { $0.id < $1.id }
        let page = selected.dropFirst(query.offset).prefix(query.limit).map(snapshot)
        return (selected.count, Array(page))
    }
}
