public import BeaconKit

/// One decoded beacon advertisement as the agent aggregates it: a compact, allocation-free value.
public struct BeaconObservation: Sendable, Equatable {
    /// The frame's format.
    public var format: BeaconFormat
    /// The beacon's identity; for frames without one (Eddystone URL and TLM), the advertiser's address.
    public var identity: BeaconIdentity
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// The RSSI of a report whose controller said "not available" (0x7F).
    public static let unknownRSSI = 127

    /// Received signal strength, dBm (``unknownRSSI`` when the controller did not measure it).
    public var rssi: Int
    /// Measured power: at 1 m for iBeacon and AltBeacon, at 0 m for Eddystone; `nil` when absent.
    public var txPower: Int?
    /// When it was heard, microseconds since 1970.
    public var timeMicros: Int64

    /// An observation; `identity` defaults to the address (frames that carry no identity).
    public init(
        format: BeaconFormat, identity: BeaconIdentity? = nil, address: BluetoothAddress, rssi: Int, txPower: Int?, timeMicros: Int64
    ) {
        self.format = format
        self.identity = identity ?? BeaconIdentity(address: address)
        self.address = address
        self.rssi = rssi
        self.txPower = txPower
        self.timeMicros = timeMicros
    }
}
