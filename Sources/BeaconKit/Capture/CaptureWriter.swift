/// Writes HCI packets into any container ``CaptureReader`` reads: btsnoop 1001/1002/2001, pcap
/// 187/201 (either byte order, micro- or nanosecond times) and pcapng 187/201 (either byte order).
///
/// The bytes accumulate in ``bytes``; long captures call ``takeBytes()`` now and then and append
/// what it returns to a file.
///
/// ```swift
/// var writer = CaptureWriter(.pcap(linkType: 201))
/// writer.append(.event, event, timestampMicroseconds: t)
/// try Data(writer.takeBytes()).write(to: url)
/// ```
public struct CaptureWriter: Sendable {
    /// The container to write.
    public enum Container: Sendable, Hashable {
        case btsnoop(datalink: UInt32)
        case pcap(linkType: UInt32, bigEndian: Bool = false, nanosecondTimestamps: Bool = false)
        case pcapng(linkType: UInt32, bigEndian: Bool = false)
    }

    /// The container being written.
    public let container: Container
    /// The bytes written and not yet taken.
    public private(set) var bytes: [UInt8] = []

    /// Starts a capture: writes the file header (and for pcapng the section header and interface
    /// description blocks).
    public init(_ container: Container) {
        self.container = container
        switch container {
        case .btsnoop(let datalink):
            bytes += Array("btsnoop".utf8) + [0]
            put32(1, bigEndian: true)
            put32(datalink, bigEndian: true)
        case .pcap(let linkType, let bigEndian, let nanoseconds):
            put32(nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4, bigEndian: bigEndian)
            put16(2, bigEndian: bigEndian)
            put16(4, bigEndian: bigEndian)
            put32(0, bigEndian: bigEndian)  // thiszone
            put32(0, bigEndian: bigEndian)  // sigfigs
            put32(65535, bigEndian: bigEndian)  // snaplen
            put32(linkType, bigEndian: bigEndian)
        case .pcapng(let linkType, let bigEndian):
            // Section header block: type, length 28, byte-order magic, version 1.0, section length -1.
            put32(0x0A0D_0D0A, bigEndian: bigEndian)
            put32(28, bigEndian: bigEndian)
            put32(0x1A2B_3C4D, bigEndian: bigEndian)
            put16(1, bigEndian: bigEndian)
            put16(0, bigEndian: bigEndian)
            put32(0xFFFF_FFFF, bigEndian: bigEndian)
            put32(0xFFFF_FFFF, bigEndian: bigEndian)
            put32(28, bigEndian: bigEndian)
            // Interface description block: link type, snaplen, no options (microsecond times).
            put32(1, bigEndian: bigEndian)
            put32(20, bigEndian: bigEndian)
            put16(UInt16(truncatingIfNeeded: linkType), bigEndian: bigEndian)
            put16(0, bigEndian: bigEndian)
            put32(0, bigEndian: bigEndian)
            put32(20, bigEndian: bigEndian)
        }
    }

    /// Appends one HCI packet of `type` (`packet` without its H4 byte). `direction` defaults to
    /// `sent` for commands and `received` for everything else.
    public mutating func append(
        _ type: HCIPacketType, _ packet: some Collection<UInt8>, direction: PacketDirection? = nil, timestampMicroseconds: Int64
    ) {
        let direction = direction ?? (type == .command ? .sent : .received)
        let received: UInt32 = direction == .received ? 1 : 0
        switch container {
        case .btsnoop(let datalink):
            let length = UInt32(packet.count + (datalink == 1002 ? 1 : 0))
            let flags: UInt32
            switch datalink {
            case 1001: flags = received | (type == .command || type == .event ? 2 : 0)
            case 2001: flags = Self.monitorOpcode(type, direction)
            default: flags = received | (type == .command || type == .event ? 2 : 0)
            }
            put32(length, bigEndian: true)
            put32(length, bigEndian: true)
            put32(flags, bigEndian: true)
            put32(0, bigEndian: true)
            let time = UInt64(bitPattern: timestampMicroseconds &+ CaptureReader.btsnoopEpochOffset)
            put32(UInt32(truncatingIfNeeded: time >> 32), bigEndian: true)
            put32(UInt32(truncatingIfNeeded: time), bigEndian: true)
            if datalink == 1002 { bytes.append(type.rawValue) }
            bytes += packet
        case .pcap(let linkType, let bigEndian, let nanoseconds):
            let length = UInt32(packet.count + 1 + (linkType == 201 ? 4 : 0))
            let (seconds, micros) = timestampMicroseconds.quotientAndRemainder(dividingBy: 1_000_000)
            put32(UInt32(truncatingIfNeeded: seconds), bigEndian: bigEndian)
            put32(UInt32(truncatingIfNeeded: nanoseconds ? micros * 1000 : micros), bigEndian: bigEndian)
            put32(length, bigEndian: bigEndian)
            put32(length, bigEndian: bigEndian)
            if linkType == 201 { put32(received, bigEndian: true) }
            bytes.append(type.rawValue)
            bytes += packet
        case .pcapng(let linkType, let bigEndian):
            let captured = packet.count + 1 + (linkType == 201 ? 4 : 0)
            let padded = (captured + 3) & ~3
            let total = UInt32(32 + padded)
            let ticks = UInt64(bitPattern: timestampMicroseconds)
            put32(6, bigEndian: bigEndian)
            put32(total, bigEndian: bigEndian)
            put32(0, bigEndian: bigEndian)  // interface 0
            put32(UInt32(truncatingIfNeeded: ticks >> 32), bigEndian: bigEndian)
            put32(UInt32(truncatingIfNeeded: ticks), bigEndian: bigEndian)
            put32(UInt32(captured), bigEndian: bigEndian)
            put32(UInt32(captured), bigEndian: bigEndian)
            if linkType == 201 { put32(received, bigEndian: true) }
            bytes.append(type.rawValue)
            bytes += packet
            bytes += repeatElement(0, count: padded - captured)
            put32(total, bigEndian: bigEndian)
        }
    }

    /// Returns the bytes written so far and forgets them (the header is not written again).
    public mutating func takeBytes() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }

    /// The Linux monitor opcode for a packet of `type` going `direction`.
    static func monitorOpcode(_ type: HCIPacketType, _ direction: PacketDirection) -> UInt32 {
        let sent = direction == .sent
        switch type {
        case .command: return 2
        case .event: return 3
        case .aclData: return sent ? 4 : 5
        case .scoData: return sent ? 6 : 7
        case .isoData: return sent ? 18 : 19
        }
    }

    private mutating func put32(_ value: UInt32, bigEndian: Bool) {
        let v = bigEndian ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) }
    }

    private mutating func put16(_ value: UInt16, bigEndian: Bool) {
        let v = bigEndian ? value.bigEndian : value.littleEndian
        withUnsafeBytes(of: v) { bytes.append(contentsOf: $0) }
    }
}
