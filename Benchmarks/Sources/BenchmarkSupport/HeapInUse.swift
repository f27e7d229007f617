import CMallocInfo

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Bytes the process has allocated with malloc and not freed: glibc's `mallinfo2()`, in-use chunks of
/// every arena (`uordblks`) plus blocks mapped on their own (`hblkhd`, large allocations). Unlike the
/// resident set it counts what is live, not what the allocator happens to hold: memory freed by an
/// earlier phase and reused reads as reuse, not as zero growth.
public enum HeapInUse {
    /// The bytes in use now, or `nil` where `mallinfo2` is not available.
    public static func bytes() -> Int? {
        beaconfleet_heap_in_use_available() == 1 ? Int(beaconfleet_heap_in_use()) : nil
    }

    /// Whether ``bytes()`` sees a known allocation: `count` blocks of `size` bytes must raise it by at
    /// least `count × size` while they live. A measurement with this check failed is no measurement.
    public static func seesAllocations(count: Int = 16_384, size: Int = 1_000) -> Bool {
        guard let before = bytes() else { return false }
        let blocks = (0..<count).map { _ in malloc(size) }
        defer { blocks.forEach { free($0) } }
        guard blocks.allSatisfy({ $0 != nil }), let after = bytes() else { return false }
        return after - before >= count * size
    }
}
