import BeaconKit
import Foundation
public import WireProtocol

/// The agent's settings with the coordinator's ``GatewayConfiguration`` applied: what the pipeline
/// runs with. The agent's own file, environment and flags override it, setting by setting
/// (``AgentConfiguration/localOverrides``); its local filters (`allow-uuid`, `formats`,
/// `deny-address`) apply together with the coordinator's identities to keep.
public struct AppliedRemoteConfiguration: Sendable, Equatable {
    public var filter: BeaconFilter
    public var windowMicros: Int64
    /// The configuration's revision.
    public var revision: String
    /// Settings of it that the agent's own override (`window`, `min-rssi`).
    public var overridden: [String]
}

/// A gateway configuration the agent cannot apply: it names the field and why.
public struct RemoteConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension AgentConfiguration {
    /// `remote` applied over this configuration (see ``AppliedRemoteConfiguration``); throws, naming
    /// the field, when any part of it is invalid (nothing of it is applied then).
    public func applying(_ remote: GatewayConfiguration) throws(RemoteConfigurationError) -> AppliedRemoteConfiguration {
        var filter = self.filter
        var windowMicros = self.windowMicros
        var overridden: [String] = []
        if let window = remote.window {
            guard window.isFinite, (0.01...3600).contains(window) else {
                throw RemoteConfigurationError("window: \(window) s is outside 0.01…3600")
            }
            if localOverrides.contains("window") {
                overridden.append("window")
            } else {
                windowMicros = Int64((window * 1_000_000).rounded())
            }
        }
        if let minRssi = remote.minRssi {
            guard (-127...20).contains(minRssi) else { throw RemoteConfigurationError("minRssi: \(minRssi) dBm is outside -127…20") }
            if localOverrides.contains("min-rssi") { overridden.append("min-rssi") } else { filter.minimumRSSI = minRssi }
        }
        filter.keep = try remote.keep.map { rules throws(RemoteConfigurationError) in try Self.keep(rules) }
        return AppliedRemoteConfiguration(filter: filter, windowMicros: windowMicros, revision: remote.revision, overridden: overridden)
    }

    /// The rules as a ``BeaconFilter/Keep``.
    static func keep(_ rules: [GatewayConfiguration.KeepRule]) throws(RemoteConfigurationError) -> BeaconFilter.Keep {
        var keep = BeaconFilter.Keep()
        for (index, rule) in rules.enumerated() {
            let given = [rule.uuid != nil, rule.namespace != nil, rule.addresses != nil].filter { $0 }.count
            guard given == 1 else { throw RemoteConfigurationError("keep[\(index)]: needs exactly one of uuid, namespace, addresses") }
            if let text = rule.uuid {
                guard let uuid = BeaconUUID(text) else { throw RemoteConfigurationError("keep[\(index)].uuid: '\(text)' is not a UUID") }
                var majors: ClosedRange<UInt16> = 0...UInt16.max
                if let range = rule.majors {
                    guard range.count == 2, range[0] <= range[1] else {
                        throw RemoteConfigurationError("keep[\(index)].majors: expected [first, last] with first ≤ last")
                    }
                    majors = range[0]...range[1]
                }
                keep.uuids.append(BeaconFilter.Keep.UUIDRule(uuid: uuid, majors: majors))
            } else if let text = rule.namespace {
                guard let namespace = EddystoneNamespace(hex: text) else {
                    throw RemoteConfigurationError("keep[\(index)].namespace: '\(text)' is not 20 hex digits")
                }
                keep.namespaces.append(namespace)
            } else if let range = rule.addresses {
                guard range.count == 2, let first = BluetoothAddress(range[0]), let last = BluetoothAddress(range[1]),
                    first.rawValue <= last.rawValue
                else { throw RemoteConfigurationError("keep[\(index)].addresses: expected [first, last] addresses, first ≤ last") }
                keep.addresses.append(first.rawValue...last.rawValue)
            }
        }
        return keep
    }
}
