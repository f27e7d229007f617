/// What is wrong with the advertising data of one report. Offsets count from the first byte of
/// the report's advertising data.
public enum AdvertisingDataError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An AD structure whose length byte runs past the end of the data; parsing of this report's
    /// data stops there (structures before it stand).
    case structureOverrun(offset: Int, length: Int, available: Int)
    /// A beacon payload (recognised by its prefix) too short for its format.
    case truncatedBeacon(format: BeaconFormat, length: Int, expected: Int)
    /// An Eddystone frame too short to hold its frame type or TLM version.
    case truncatedEddystone(length: Int)
    /// An Eddystone-URL byte that is neither printable ASCII nor an expansion code.
    case invalidEddystoneURL(field: String, byte: UInt8, offset: Int)

    public var description: String {
        switch self {
        case .structureOverrun(let offset, let length, let available):
            return "AD structure at byte \(offset) declares length \(length) but only \(available) byte(s) follow"
        case .truncatedBeacon(let format, let length, let expected):
            return "\(format.rawValue) payload is \(length) byte(s), expected at least \(expected)"
        case .truncatedEddystone(let length):
            return "Eddystone service data is \(length) byte(s), too short for a frame type"
        case .invalidEddystoneURL(let field, let byte, let offset):
            return "Eddystone-URL \(field) byte 0x\(hex(byte)) at byte \(offset) is not a valid URL character or code"
        }
    }
}
