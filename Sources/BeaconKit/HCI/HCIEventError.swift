/// Why an HCI event could not be decoded completely. Every case names the field and the byte
/// offset (counted from the event code) where the bytes ran out or made no sense.
public enum HCIEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than the 2 header bytes (event code, parameter length).
    case truncatedHeader(bytes: Int)
    /// The header's Parameter_Total_Length is larger than the bytes present.
    case truncatedParameters(declared: Int, available: Int)
    /// An LE Meta event without its subevent code.
    case missingSubevent
    /// An advertising report event whose Num_Reports is 0 (the specification allows 1 to 25).
    case noReports(subevent: UInt8)
    /// Report `report` (1-based) of `count` ends before its `field` is complete.
    case truncatedReport(subevent: UInt8, report: Int, count: Int, field: String, offset: Int)

    public var description: String {
        switch self {
        case .truncatedHeader(let bytes):
            return "HCI event header truncated: \(bytes) byte(s), expected 2 (event code, parameter length)"
        case .truncatedParameters(let declared, let available):
            return "HCI event Parameter_Total_Length is \(declared) but only \(available) byte(s) follow"
        case .missingSubevent:
            return "LE Meta event (0x3E) without a Subevent_Code"
        case .noReports(let subevent):
            return "LE advertising report event (0x3E/0x\(hex(subevent))) with Num_Reports = 0"
        case .truncatedReport(let subevent, let report, let count, let field, let offset):
            return
                "LE advertising report event (0x3E/0x\(hex(subevent))): report \(report) of \(count) ends before \(field) at byte \(offset)"
        }
    }
}

/// Two upper-case hex digits.
func hex(_ byte: UInt8) -> String {
    Hex.string(UInt64(byte), digits: 2)
}
