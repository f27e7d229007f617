import BeaconKit
import Foundation
public import Topology
public import WireProtocol

extension GatewayConfiguration {
    /// What `topology` asks of gateway `gateway`'s agent (``GatewayConfiguration``), its revision set:
    ///
    /// - `keep`: without `clients.csv`, absent (every identity may be a client); with it, the UUIDs
    ///   of the venue's regions (their beacons, which the gateways' self-calibration reads; one rule
    ///   per UUID, whatever the venue's size) and every `client` rule, as written. A `venue` rule's
    ///   identities, and whatever no rule admits, are not kept: the coordinator would not admit them.
    /// - `window`, `minRssi`: the gateway's `window` and `min_rssi` in `gateways.csv`, when given.
    public static func plan(for gateway: Gateway, in topology: Topology) -> GatewayConfiguration {
        var keep: [KeepRule]?
        if let policy = topology.clientPolicy {
            var rules: [KeepRule] = []
            var seen: Set<BeaconUUID> = []
            for region in topology.regions where seen.insert(region.identity.uuid).inserted {
                rules.append(KeepRule(uuid: region.identity.uuid.description, why: "regions"))
            }
            for rule in policy.rules where rule.role == .client {
                switch rule.match {
                case .uuid(let uuid, let majors):
                    rules.append(
                        KeepRule(
                            uuid: uuid.description, majors: majors == 0...UInt16.max ? nil : [majors.lowerBound, majors.upperBound],
                            why: "clients"))
                case .namespace(let namespace):
                    rules.append(KeepRule(namespace: namespace.description, why: "clients"))
                case .addresses(let range):
                    rules.append(
                        KeepRule(
                            addresses: [
                                BluetoothAddress(rawValue: range.lowerBound).description,
                                BluetoothAddress(rawValue: range.upperBound).description,
                            ],
                            why: "clients"))
                }
            }
            keep = rules
        }
        return GatewayConfiguration(
            gateway: gateway.id, venue: topology.name, window: gateway.window, minRssi: gateway.minRSSI, keep: keep
        ).revised()
    }
}
