/// One AD structure (length, type, value) of an advertisement's data; a borrowed view.
public struct ADStructure {
    /// The AD type.
    public var type: ADType
    /// The value bytes (after the type byte); valid only as long as the advertising data is.
    public var value: UnsafeRawBufferPointer
    /// Where the structure's length byte sits in the advertising data.
    public var offset: Int
}

/// An AD type (Bluetooth Assigned Numbers, "Common Data Types").
public struct ADType: RawRepresentable, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Flags (0x01).
    public static let flags = ADType(rawValue: 0x01)
    /// Incomplete list of 16-bit service UUIDs (0x02).
    public static let incompleteServiceUUIDs16 = ADType(rawValue: 0x02)
    /// Complete list of 16-bit service UUIDs (0x03).
    public static let completeServiceUUIDs16 = ADType(rawValue: 0x03)
    /// Incomplete list of 32-bit service UUIDs (0x04).
    public static let incompleteServiceUUIDs32 = ADType(rawValue: 0x04)
    /// Complete list of 32-bit service UUIDs (0x05).
    public static let completeServiceUUIDs32 = ADType(rawValue: 0x05)
    /// Incomplete list of 128-bit service UUIDs (0x06).
    public static let incompleteServiceUUIDs128 = ADType(rawValue: 0x06)
    /// Complete list of 128-bit service UUIDs (0x07).
    public static let completeServiceUUIDs128 = ADType(rawValue: 0x07)
    /// Shortened local name (0x08).
    public static let shortenedLocalName = ADType(rawValue: 0x08)
    /// Complete local name (0x09).
    public static let completeLocalName = ADType(rawValue: 0x09)
    /// TX power level (0x0A).
    public static let txPowerLevel = ADType(rawValue: 0x0A)
    /// Service data with a 16-bit UUID (0x16).
    public static let serviceData16 = ADType(rawValue: 0x16)
    /// Service data with a 32-bit UUID (0x20).
    public static let serviceData32 = ADType(rawValue: 0x20)
    /// Service data with a 128-bit UUID (0x21).
    public static let serviceData128 = ADType(rawValue: 0x21)
    /// Manufacturer specific data (0xFF).
    public static let manufacturerData = ADType(rawValue: 0xFF)
}
