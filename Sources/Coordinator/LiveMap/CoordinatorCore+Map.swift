import Foundation
public import LiveMap
import Topology
public import WireProtocol

/// The live map's view of the core: a snapshot with a subscription, the changes after each
/// batch, the client list and the topology export.
extension CoordinatorCore {
    /// Subscribes to the map's changes and returns the state they apply to: taken together on
    /// the core's actor, so no change falls between the snapshot and the first update.
    public func subscribeMap() -> (MapSubscription, MapSnapshot) {
        let subscription = map.subscribe()
        engine.tracksTouched = true
        let snapshot = MapSnapshot(
            clients: engine.markers(), gateways: engine.gatewayMarkers,
            topology: .init(name: engine.venue.topology.name, revision: engine.venue.topology.revision),
            time: Milliseconds.now())
        mapGatewaysOnline = engine.gateways.online
        return (subscription, snapshot)
    }

    /// Hands the map what the last batch changed (`touched`: client indices).
    func feedMap(touched: [Int32], removed: [String]) {
        let clients = engine.markers(of: touched)
        var gateways: [GatewayMarker]?
        if engine.gateways.online != mapGatewaysOnline {
            mapGatewaysOnline = engine.gateways.online
            gateways = engine.gatewayMarkers
        }
        map.publish(clients: clients, removed: removed, gateways: gateways, topologyChanged: mapTopologyChanged)
        mapTopologyChanged = false
    }

    /// The clients `query` selects (`GET /api/clients`).
    public func clients(_ query: ClientQuery) -> (total: Int, page: [ClientSnapshot]) { engine.clients(query) }

    /// The venue as `beaconfleet topology export` prints it (`GET /api/topology`).
    public func topologyJSON() -> String { TopologyExporter().json(engine.venue.topology) }
}
