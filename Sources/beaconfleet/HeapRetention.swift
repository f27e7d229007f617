#if canImport(Glibc)
    import Glibc
#endif

/// glibc's heap tuning for the coordinator: freed memory is kept for reuse instead of being handed
/// back to the kernel at once.
///
/// Every sightings batch arrives as a fresh payload of up to 256 KiB, copied out of libmosquitto,
/// queued and freed after decoding. With glibc's defaults the heap's top is trimmed back as soon as
/// the queue drains, so the next burst faults its pages in again and the kernel zeroes each one:
/// ~9 % of the pinned coordinator's core in `clear_page` in the e2e-pinned benchmark, 0.4 % with
/// this. The cost: freed heap up to what a full sightings queue held stays resident for the next
/// burst (the peak is not raised, it is only not given back).
enum HeapRetention {
    /// Freed memory at the top of a heap kept before it is trimmed: 64 MiB, or what a queue of
    /// `queuedSightings` sightings takes (about 130 bytes each on the wire, 256 counted) when more.
    static func trimThreshold(queuedSightings: Int) -> Int32 {
        Int32(clamping: max(64 << 20, min(queuedSightings, Int(Int32.max)) * 256))
    }
    /// Allocations from this size on get a mapping of their own (glibc's fixed maximum; a fixed
    /// value also turns off its sliding threshold), so payloads always come from the heap.
    static let mmapThreshold: Int32 = 32 << 20

    /// Applies the tuning to this process; a no-op where the C library has no `mallopt`. Returns
    /// whether both settings were taken.
    @discardableResult
    static func keepFreedMemoryForReuse(queuedSightings: Int) -> Bool {
        #if canImport(Glibc)
            // Glibc's module map leaves out <malloc.h>: `mallopt` by name, its parameters by the
            // values that header gives them (M_TRIM_THRESHOLD −1, M_MMAP_THRESHOLD −3).
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            return mallopt(-3, mmapThreshold) == 1 && mallopt(-1, trimThreshold(queuedSightings: queuedSightings)) == 1
        #else
            return false
        #endif
    }
}
