/// Why a capture cannot be read at all. Each message names the file and says what was expected.
/// (Damage inside a readable capture is not an error: it is counted in ``CaptureStatistics`` and
/// described in ``CaptureReader/issues``.)
public enum CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be opened.
    case cannotOpen(file: String, reason: String)
    /// Reading failed (an I/O error, or the path is a directory).
    case readFailed(file: String, reason: String)
    /// The first bytes are no capture format this reader knows.
    case unknownFormat(file: String, firstBytes: [UInt8])
    /// The file ends inside its header.
    case truncatedHeader(file: String, format: String, bytes: Int, expected: Int)
    /// A btsnoop version other than 1.
    case unsupportedVersion(file: String, format: String, version: UInt32)
    /// A btsnoop datalink other than 1001, 1002, 2001.
    case unsupportedDatalink(file: String, datalink: UInt32)
    /// A pcap link type other than 187 or 201.
    case unsupportedLinkType(file: String, linkType: UInt32)
    /// A pcapng section header with an unknown byte-order magic.
    case invalidByteOrderMagic(file: String)

    public var description: String {
        switch self {
        case .cannotOpen(let file, let reason):
            return "\(file): cannot open: \(reason)"
        case .readFailed(let file, let reason):
            return "\(file): read failed: \(reason)"
        case .unknownFormat(let file, let firstBytes):
            let shown =
                firstBytes.isEmpty ? "the file is empty" : "it starts with " + firstBytes.prefix(8).map { hex($0) }.joined(separator: " ")
            return "\(file): not a capture this reader knows (\(shown)); expected btsnoop (\"btsnoop\\0\"), "
                + "pcap (magic A1 B2 C3 D4 or A1 B2 3C 4D, either byte order) or pcapng (0A 0D 0D 0A)"
        case .truncatedHeader(let file, let format, let bytes, let expected):
            return "\(file): \(format) header truncated: \(bytes) byte(s), expected \(expected)"
        case .unsupportedVersion(let file, let format, let version):
            return "\(file): \(format) version \(version) is not supported; expected 1"
        case .unsupportedDatalink(let file, let datalink):
            return "\(file): btsnoop datalink \(datalink) is not supported; expected 1001 (HCI), 1002 (H4) or 2001 (Linux monitor)"
        case .unsupportedLinkType(let file, let linkType):
            return "\(file): pcap link type \(linkType) is not Bluetooth HCI; expected 187 (H4) or 201 (H4 with direction header)"
        case .invalidByteOrderMagic(let file):
            return "\(file): pcapng section header has no valid byte-order magic (1A 2B 3C 4D)"
        }
    }
}
