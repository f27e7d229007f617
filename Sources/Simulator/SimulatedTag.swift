import Foundation
import WireProtocol

/// A client the simulations' gateways hear: an iBeacon of ``LiveSimulation/Configuration/tagUUID``
/// told apart by its major and minor, with a Bluetooth address made from its minor.
struct SimulatedTag: Sendable, Hashable {
    var uuid = LiveSimulation.Configuration.tagUUID
    var major = LiveSimulation.Configuration.tagMajor
    var minor: UInt16

    /// The coordinator's id for it: `UUID.MAJOR.MINOR`.
    var client: String { "\(uuid).\(major).\(minor)" }

    /// Its Bluetooth address: `5A:1D:00:00:` and its minor's two bytes.
    var address: String { String(format: "5A:1D:00:00:%02X:%02X", minor >> 8, minor & 0xFF) }

    /// It as a gateway's window reports it: `count` advertisements heard at `rssi` on average and
    /// `rssiMax` at the strongest, with a measured power of `txPower` dBm at 1 m.
    func sighting(rssi: Double, rssiMax: Int, count: Int, txPower: Int) -> Sighting {
        Sighting(
            format: "ibeacon", uuid: uuid, major: major, minor: minor, address: address, rssi: rssi, rssiMax: rssiMax, count: count,
            txPower: txPower)
    }
}
