/// The container of a capture file, detected from its first bytes.
public enum CaptureFormat: Sendable, Hashable, CustomStringConvertible {
    /// btsnoop with its datalink: 1001 (HCI un-encapsulated, packet type from the record flags),
    /// 1002 (H4: packet type byte first, as Android writes) or 2001 (Linux monitor, as `btmon -w`
    /// writes: opcode in the flags).
    case btsnoop(datalink: UInt32)
    /// pcap with its link type: 187 (H4) or 201 (H4 after a 4-byte direction header).
    case pcap(linkType: UInt32, nanosecondTimestamps: Bool, bigEndian: Bool)
    /// pcapng (section header, interface description and packet blocks, either byte order);
    /// packets on interfaces with link type 187 or 201 are read.
    case pcapng

    /// btsnoop datalinks this reader handles.
    public static let btsnoopDatalinks: Set<UInt32> = [1001, 1002, 2001]
    /// pcap/pcapng link types this reader handles.
    public static let pcapLinkTypes: Set<UInt32> = [187, 201]

    public var description: String {
        switch self {
        case .btsnoop(let datalink): "btsnoop \(datalink)"
        case .pcap(let linkType, _, _): "pcap link type \(linkType)"
        case .pcapng: "pcapng"
        }
    }
}
