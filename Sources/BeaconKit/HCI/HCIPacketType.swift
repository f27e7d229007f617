/// The H4 packet indicator: the byte before every HCI packet on a UART transport, and the first
/// byte of every record in a btsnoop 1002 or pcap 187/201 capture.
public enum HCIPacketType: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// A command from the host to the controller.
    case command = 0x01
    /// ACL data (connections, GATT).
    case aclData = 0x02
    /// Synchronous (SCO) data.
    case scoData = 0x03
    /// An event from the controller to the host; the only packets that carry advertisements.
    case event = 0x04
    /// Isochronous data.
    case isoData = 0x05

    public var description: String {
        switch self {
        case .command: "command"
        case .aclData: "acl"
        case .scoData: "sco"
        case .event: "event"
        case .isoData: "iso"
        }
    }
}

/// Which way a recorded packet went, when the capture says.
public enum PacketDirection: Sendable, Hashable {
    /// Host to controller (commands, outgoing data).
    case sent
    /// Controller to host (events, incoming data).
    case received
}
