/// MQTT's remaining length: the byte count after a packet's fixed header, as a variable-length
/// integer of one to four bytes, seven bits each, least significant first; the high bit says
/// another byte follows.
public enum RemainingLength {
    /// The largest length four bytes can say (256 MiB − 1).
    public static let maximum = 268_435_455

    /// Appends the encoding of `value` (0...``maximum``) to `bytes`.
    public static func encode(_ value: Int, into bytes: inout [UInt8]) {
        precondition((0...maximum).contains(value), "remaining length \(value) out of range")
        var rest = value
        repeat {
            var byte = UInt8(rest & 0x7F)
            rest >>= 7
            if rest > 0 { byte |= 0x80 }
            bytes.append(byte)
        } while rest > 0
    }

    /// The encoding of `value` (0...``maximum``).
    public static func encoded(_ value: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(value, into: &bytes)
        return bytes
    }

    /// Reads a remaining length from the start of `bytes`: the value and how many bytes it took, or
    /// `nil` when `bytes` ends before its last byte. Throws when a fourth byte still says more follow.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(MQTTPacketError) -> (value: Int, byteCount: Int)? {
        var value = 0
        var count = 0
        for byte in bytes {
            value |= Int(byte & 0x7F) << (7 * count)
            count += 1
            if byte & 0x80 == 0 { return (value, count) }
            if count == 4 { throw .malformedRemainingLength }
        }
        return nil
    }
}
