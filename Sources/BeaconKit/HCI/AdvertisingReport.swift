/// One advertising report from an LE Advertising Report (0x3E/0x02) or LE Extended Advertising
/// Report (0x3E/0x0D) event: who sent it, how strongly it was heard and what kind of PDU it was.
///
/// This is the owned, `Sendable` part of a report. The advertising data itself is handed out next
/// to it as a borrowed ``AdvertisingData`` view (see ``AdvertisingReportDecoder``), so that decoding
/// copies no bytes and allocates nothing.
public struct AdvertisingReport: Sendable, Hashable {
    /// Which HCI event the report came from.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// LE Advertising Report (subevent 0x02): legacy PDUs, up to 31 bytes of data.
        case legacy
        /// LE Extended Advertising Report (subevent 0x0D).
        case extended

        public var description: String {
            switch self {
            case .legacy: "legacy"
            case .extended: "extended"
            }
        }
    }

    /// The event the report came from.
    public var kind: Kind
    /// The event type: for legacy reports 0 (ADV_IND) … 4 (SCAN_RSP); for extended reports the
    /// bit field described by ``AdvertisingEventType``.
    public var eventType: AdvertisingEventType
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// The kind of ``address``.
    public var addressType: AddressType
    /// Received signal strength in dBm; `nil` when the controller reports 0x7F (not available).
    public var rssi: Int8?
    /// The advertiser's transmit power in dBm (extended reports only); `nil` when 0x7F or legacy.
    public var txPower: Int8?
    /// The primary advertising PHY (extended reports only).
    public var primaryPHY: PHY?
    /// The secondary advertising PHY (extended reports only; `nil` when 0x00, no packets on it).
    public var secondaryPHY: PHY?
    /// The Advertising SID (extended reports only; `nil` when 0xFF, none).
    public var advertisingSID: UInt8?
    /// The periodic advertising interval in units of 1.25 ms (extended reports only; 0 when none).
    public var periodicAdvertisingInterval: UInt16
    /// For directed advertising, the address it is directed to (extended reports only).
    public var directAddress: BluetoothAddress?
    /// The kind of ``directAddress``.
    public var directAddressType: AddressType?

    public init(
        kind: Kind, eventType: AdvertisingEventType, address: BluetoothAddress, addressType: AddressType,
        rssi: Int8?, txPower: Int8? = nil, primaryPHY: PHY? = nil, secondaryPHY: PHY? = nil,
        advertisingSID: UInt8? = nil, periodicAdvertisingInterval: UInt16 = 0,
        directAddress: BluetoothAddress? = nil, directAddressType: AddressType? = nil
    ) {
        self.kind = kind
        self.eventType = eventType
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.periodicAdvertisingInterval = periodicAdvertisingInterval
        self.directAddress = directAddress
        self.directAddressType = directAddressType
    }

    /// Whether this report is a scan response rather than an advertisement.
    public var isScanResponse: Bool {
        switch kind {
        case .legacy: eventType.rawValue == 0x04
        case .extended: eventType.isScanResponse
        }
    }
}

/// The event type of an advertising report.
///
/// Legacy reports carry a value (0 ADV_IND, 1 ADV_DIRECT_IND, 2 ADV_SCAN_IND, 3 ADV_NONCONN_IND,
/// 4 SCAN_RSP). Extended reports carry bits: 0 connectable, 1 scannable, 2 directed, 3 scan
/// response, 4 legacy PDU, 5–6 data status (0 complete, 1 incomplete with more to come,
/// 2 incomplete and truncated). The bit accessors apply to extended reports only.
public struct AdvertisingEventType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// Whether the advertisement is connectable (bit 0).
    public var isConnectable: Bool { rawValue & 0x01 != 0 }
    /// Whether the advertisement is scannable (bit 1).
    public var isScannable: Bool { rawValue & 0x02 != 0 }
    /// Whether the advertisement is directed (bit 2).
    public var isDirected: Bool { rawValue & 0x04 != 0 }
    /// Whether this is a scan response (bit 3).
    public var isScanResponse: Bool { rawValue & 0x08 != 0 }
    /// Whether a legacy PDU was used (bit 4).
    public var isLegacyPDU: Bool { rawValue & 0x10 != 0 }
    /// The data status (bits 5–6).
    public var dataStatus: DataStatus { DataStatus(rawValue: UInt8((rawValue >> 5) & 0x03)) }

    /// Whether the data of an extended report is complete, partial or truncated.
    public struct DataStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// All data received.
        public static let complete = DataStatus(rawValue: 0)
        /// Incomplete: more data follows in the next report.
        public static let incompleteMoreToCome = DataStatus(rawValue: 1)
        /// Incomplete: the data was truncated and nothing more follows.
        public static let incompleteTruncated = DataStatus(rawValue: 2)

        public var description: String {
            switch rawValue {
            case 0: "complete"
            case 1: "incomplete"
            case 2: "truncated"
            default: "reserved"
            }
        }
    }
}

/// A Bluetooth LE PHY, as reported in extended advertising reports.
public struct PHY: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// LE 1M.
    public static let le1M = PHY(rawValue: 0x01)
    /// LE 2M.
    public static let le2M = PHY(rawValue: 0x02)
    /// LE Coded.
    public static let leCoded = PHY(rawValue: 0x03)

    /// `1M`, `2M`, `coded`, or `0xNN`.
    public var description: String {
        switch rawValue {
        case 1: "1M"
        case 2: "2M"
        case 3: "coded"
        default: "0x" + Hex.string(UInt64(rawValue), digits: 2)
        }
    }
}
