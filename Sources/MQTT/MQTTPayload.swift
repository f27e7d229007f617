#if canImport(Glibc)
    import Glibc
#endif

/// A received payload in memory of its own, freed when the last reference goes: what
/// ``ReceivedMessage/takePayload()`` hands over instead of a copy.
///
/// Why not `[UInt8]`: an array cannot adopt memory it did not allocate, so keeping a large payload
/// as an array meant copying it out of libmosquitto (a sightings batch of 1,000 is ~187 KB; under a
/// backlog the copy went to cold memory: 13 % of the pinned end-to-end coordinator's user-space
/// samples under `perf record`). This holds libmosquitto's own buffer instead.
public final class MQTTPayload: @unchecked Sendable {
    // @unchecked: the bytes are written before `init` returns and never after.
    private let start: UnsafeMutableRawPointer?
    /// The number of bytes.
    public let count: Int

    /// Takes `start` (allocated with `malloc`/`calloc`; freed here with `free`) of `count` bytes.
    init(adopting start: UnsafeMutableRawPointer?, count: Int) {
        self.start = start
        self.count = start == nil ? 0 : count
    }

    /// A copy of `bytes` in memory of its own.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty, let memory = malloc(bytes.count) else {
            self.init(adopting: nil, count: 0)
            return
        }
        memory.copyMemory(from: base, byteCount: bytes.count)
        self.init(adopting: memory, count: bytes.count)
    }

    deinit { free(start) }

    /// Calls `body` with the bytes (valid only during the call).
    public func withUnsafeBytes<Result, Failure: Error>(
        _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeRawBufferPointer(start: start, count: count))
    }
}
