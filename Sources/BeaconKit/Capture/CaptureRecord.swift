/// One record of a capture, as a borrowed view into the reader's buffer: valid until the next
/// call to ``CaptureReader/next()``.
public struct CaptureRecord {
    /// The record's position in the file (1-based), counting every record and packet block.
    public var number: Int
    /// When the packet was recorded, in microseconds since 1970-01-01 UTC; `nil` when the
    /// container has no time for it (pcapng simple packet blocks).
    public var timestampMicroseconds: Int64?
    /// Which way the packet went, when the container says.
    public var direction: PacketDirection?
    /// The HCI packet type.
    public var packetType: HCIPacketType
    /// The HCI packet without the H4 type byte (for an event: code, length, parameters).
    public var packet: UnsafeRawBufferPointer
    /// The same packet with the H4 type byte first, as a UART transport carries it.
    public var h4Packet: UnsafeRawBufferPointer
}

/// Counters of what a ``CaptureReader`` has read so far. Exact: every record is in exactly one of
/// ``records``, ``skippedRecords`` and ``malformedRecords``.
public struct CaptureStatistics: Sendable, Hashable {
    /// HCI packets delivered.
    public var records: Int = 0
    /// Well-formed records that are not HCI packets (monitor notes and index events, packets on
    /// non-Bluetooth pcapng interfaces).
    public var skippedRecords: Int = 0
    /// Records that could not be read (truncated, impossible lengths, unknown packet types).
    public var malformedRecords: Int = 0
    /// Bytes consumed from the file.
    public var bytesRead: UInt64 = 0

    public init() {}
}

/// Damage found inside a readable capture, with where it is.
public struct CaptureIssue: Sendable, Hashable, CustomStringConvertible {
    /// The capture's name (its path).
    public var file: String
    /// The record number (1-based) the damage is in.
    public var record: Int
    /// The byte offset of that record in the file.
    public var offset: UInt64
    /// What is wrong, naming the field.
    public var message: String

    public var description: String {
        "\(file): record \(record) at byte \(offset): \(message)"
    }
}
