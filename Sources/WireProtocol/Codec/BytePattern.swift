/// Up to 16 literal bytes as two masked little-endian words, compared in two loads: the keys the
/// agent writes (`"rssi":`) and the canonical sighting layout's members (`,"count":`).
struct BytePattern: Sendable {
    let first: UInt64, second: UInt64
    let firstMask: UInt64, secondMask: UInt64
    let length: Int

    /// `text`'s bytes (at most 16), without allocating.
    init(_ text: StaticString) {
        precondition(text.utf8CodeUnitCount <= 16, "a byte pattern holds at most 16 bytes")
        var words: (UInt64, UInt64) = (0, 0)
        var masks: (UInt64, UInt64) = (0, 0)
        for i in 0..<text.utf8CodeUnitCount {
            let shift = UInt64(8 * (i % 8))
            if i < 8 {
                words.0 |= UInt64(text.utf8Start[i]) << shift
                masks.0 |= 0xFF << shift
            } else {
                words.1 |= UInt64(text.utf8Start[i]) << shift
                masks.1 |= 0xFF << shift
            }
        }
        (first, second, firstMask, secondMask, length) = (words.0, words.1, masks.0, masks.1, text.utf8CodeUnitCount)
    }

    /// Moves `at` past the pattern when the bytes at `p + at` start with it. The caller guarantees
    /// 16 readable bytes there.
    @inline(__always) func consume(_ p: UnsafePointer<UInt8>, _ at: inout Int) -> Bool {
        guard matches(p + at) else { return false }
        at += length
        return true
    }

    /// Whether the bytes at `p` start with the pattern. The caller guarantees 16 readable bytes.
    @inline(__always) func matches(_ p: UnsafePointer<UInt8>) -> Bool {
        let raw = UnsafeRawPointer(p)
        return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) & firstMask == first
            && UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & secondMask == second
    }
}
