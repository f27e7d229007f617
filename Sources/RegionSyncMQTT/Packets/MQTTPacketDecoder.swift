/// Cuts a byte stream into MQTT packets: bytes go in as they arrive (``append(_:)``), whole packets
/// come out (``next()``).
///
/// A packet announcing more than ``maximumPacketSize`` bytes is refused as soon as its length is
/// read, before its bytes are buffered. After an error the stream is out of step: close the connection.
public struct MQTTPacketDecoder: Sendable {
    /// The largest remaining length accepted.
    public let maximumPacketSize: Int
    private var buffer: [UInt8] = []
    /// Where the next packet starts in ``buffer``.
    private var start = 0

    /// A decoder refusing packets longer than `maximumPacketSize` bytes (1 MiB by default: a
    /// `regions` payload is at most 256 KiB).
    public init(maximumPacketSize: Int = 1 << 20) {
        self.maximumPacketSize = min(maximumPacketSize, RemainingLength.maximum)
    }

    /// Bytes received and not yet returned as packets.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet, or `nil` until more bytes arrive.
    public mutating func next() throws(MQTTPacketError) -> MQTTPacket? {
        guard start < buffer.count else { return nil }
        guard let (length, count) = try RemainingLength.decode(buffer[(start + 1)...]) else { return nil }
        guard length <= maximumPacketSize else { throw .packetTooLarge(length: length, limit: maximumPacketSize) }
        let bodyStart = start + 1 + count
        guard buffer.count - bodyStart >= length else { return nil }
        let header = buffer[start]
        let body = buffer[bodyStart..<bodyStart + length]
        start = bodyStart + length
        defer { compact() }
        return try MQTTPacket(header: header, body: body)
    }

    /// Drops the bytes of packets already returned once they are most of the buffer.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            start = 0
        } else if start >= 1 << 12, start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }
}

/// Hands out packet identifiers 1...65535 in turn, skipping those still awaiting an answer.
public struct PacketIdentifiers: Sendable {
    private var last: UInt16 = 0

    /// Identifiers from 1 up.
    public init() {}

    /// The next identifier not in `inUse`; `nil` only when all 65,535 are.
    public mutating func next(avoiding inUse: Set<UInt16>) -> UInt16? {
        guard inUse.count < Int(UInt16.max) else { return nil }
        repeat {
            last = last == UInt16.max ? 1 : last + 1
        } while inUse.contains(last)
        return last
    }
}
