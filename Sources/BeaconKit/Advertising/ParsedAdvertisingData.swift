/// An owned, decoded summary of one advertisement's AD structures, for display (`decode --all`)
/// and tests. Unknown AD types are kept raw in ``otherStructures``.
public struct ParsedAdvertisingData: Sendable, Hashable {
    /// The Flags AD (LE General Discoverable, BR/EDR Not Supported, …), if present.
    public var flags: UInt8?
    /// The complete or shortened local name, if present (invalid UTF-8 is repaired).
    public var localName: String?
    /// Whether ``localName`` came from the Complete Local Name AD (rather than Shortened).
    public var isCompleteName: Bool = false
    /// Service UUIDs from the 16-, 32- and 128-bit lists, complete or not, in order.
    public var serviceUUIDs: [BluetoothUUID] = []
    /// Service data, in order.
    public var serviceData: [ServiceData] = []
    /// Manufacturer-specific data, in order.
    public var manufacturerData: [ManufacturerData] = []
    /// The TX Power Level AD, in dBm.
    public var txPowerLevel: Int8?
    /// Structures of other types, as (type, value).
    public var otherStructures: [RawStructure] = []
    /// The beacon, if any.
    public var beacon: Beacon?
    /// The first malformed structure, if any: parsing stopped there, what came before stands.
    public var error: AdvertisingDataError?

    /// Service data: the service UUID and the bytes after it.
    public struct ServiceData: Sendable, Hashable {
        public var uuid: BluetoothUUID
        public var data: [UInt8]

        public init(uuid: BluetoothUUID, data: [UInt8]) {
            self.uuid = uuid
            self.data = data
        }
    }

    /// Manufacturer-specific data: the company id and the bytes after it.
    public struct ManufacturerData: Sendable, Hashable {
        public var companyID: UInt16
        public var data: [UInt8]

        public init(companyID: UInt16, data: [UInt8]) {
            self.companyID = companyID
            self.data = data
        }
    }

    /// An AD structure of a type this summary does not decode.
    public struct RawStructure: Sendable, Hashable {
        public var type: UInt8
        public var value: [UInt8]

        public init(type: UInt8, value: [UInt8]) {
            self.type = type
            self.value = value
        }
    }

    init(_ data: AdvertisingData) {
        let beaconDecoding = data.decodeBeacon()
        beacon = beaconDecoding.beacon
        error = beaconDecoding.error
        data.forEachStructure { structure in
            let value = structure.value
            switch structure.type {
            case .flags where value.count >= 1:
                flags = value[0]
            case .shortenedLocalName where localName == nil, .completeLocalName:
                localName = String(decoding: value, as: UTF8.self)
                isCompleteName = structure.type == .completeLocalName
            case .incompleteServiceUUIDs16, .completeServiceUUIDs16:
                appendUUIDs(value, size: 2)
            case .incompleteServiceUUIDs32, .completeServiceUUIDs32:
                appendUUIDs(value, size: 4)
            case .incompleteServiceUUIDs128, .completeServiceUUIDs128:
                appendUUIDs(value, size: 16)
            case .serviceData16 where value.count >= 2:
                appendServiceData(value, size: 2)
            case .serviceData32 where value.count >= 4:
                appendServiceData(value, size: 4)
            case .serviceData128 where value.count >= 16:
                appendServiceData(value, size: 16)
            case .manufacturerData where value.count >= 2:
                manufacturerData.append(ManufacturerData(companyID: UInt16(value[0]) | UInt16(value[1]) << 8, data: Array(value[2...])))
            case .txPowerLevel where value.count >= 1:
                txPowerLevel = Int8(bitPattern: value[0])
            default:
                otherStructures.append(RawStructure(type: structure.type.rawValue, value: Array(value)))
            }
        }
    }

    private mutating func appendUUIDs(_ value: UnsafeRawBufferPointer, size: Int) {
        var offset = 0
        while offset + size <= value.count {
            if let uuid = BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: value[offset..<(offset + size)])) {
                serviceUUIDs.append(uuid)
            }
            offset += size
        }
    }

    private mutating func appendServiceData(_ value: UnsafeRawBufferPointer, size: Int) {
        guard let uuid = BluetoothUUID(littleEndian: UnsafeRawBufferPointer(rebasing: value[0..<size])) else { return }
        serviceData.append(ServiceData(uuid: uuid, data: Array(value[size...])))
    }
}
