import BeaconKit
import Foundation
import Planner
import Topology
import WireProtocol

/// A topology reload: every client re-expressed in the new venue's indices and re-planned.
extension CoordinatorEngine {
    /// Replaces the venue (a topology reload): every client's set is re-expressed by region id in
    /// the new topology and re-planned; changes are published with reason `topology`.
    public func replaceVenue(_ newVenue: CoordinatorVenue, now: Int64) {
        let old = venue.topology
        let oldLevels = venue.estimator.levels
        venue = newVenue
        search = WalkingDistanceSearch(topology: newVenue.topology)
        let topology = newVenue.topology
        gateways = gateways.remapped(from: old, to: topology)
        calibrationVenueReplaced()
        /// An estimate on its level in the new venue (by name); `nil` when that level is gone.
        func relevelled(_ state: PositionState?) -> PositionState? {
            guard var state, Int(state.level) < oldLevels.count else { return state }
            guard let level = newVenue.estimator.levelIndex(of: oldLevels[Int(state.level)]) else { return nil }
            state.level = level
            return state
        }
        func remap(_ indices: [Int32]) -> [Int32] {
            indices.compactMap { topology.regionIndex(id: old.regions[Int($0)].id).map(Int32.init) }
        }
        for index in table.indices {
            guard var record = table.take(index) else { continue }
            let mapped = remap(record.regions)
            record.vanished += record.regions.map { old.regions[Int($0)].id }.filter { topology.regionIndex(id: $0) == nil }
            record.regions = mapped
            record.inside = remap(record.inside)
            record.stateUnknown = remap(record.stateUnknown)
            record.heard = record.heard.compactMap { entry in
                topology.regionIndex(id: old.regions[Int(entry.region)].id).map {
                    HeardRegion(region: Int32($0), time: entry.time, told: entry.told)
                }
            }
            record.observations = record.observations.compactMap { o in
                let anchor: Anchor
                if let gateway = o.anchor.gateway {
                    guard let n = topology.gatewayIndex(id: old.gateways[Int(gateway)].id) else { return nil }
                    anchor = .gateway(Int32(n))
                } else {
                    guard let n = topology.regionIndex(id: old.regions[Int(o.anchor.region!)].id) else { return nil }
                    anchor = .region(Int32(n))
                }
                var moved = o
                moved.anchor = anchor
                return moved
            }
            record.location = relevelled(record.location)
            record.presenceLocation = newVenue.presenceEstimator == nil ? nil : relevelled(record.presenceLocation)
            record.forcePlan = true
            record.reason = .topology
            dirty.mark(index)
            table[index] = record
        }
        flush(now: now)
    }
}
