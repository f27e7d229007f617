import MQTT

/// glibc's heap tuning for the coordinator: one arena, and freed memory kept for reuse instead of
/// being handed back to the kernel at once.
///
/// Every sightings batch arrives as a fresh payload of up to 256 KiB that libmosquitto allocates
/// (the coordinator takes it over, ``MQTT/ReceivedMessage/takePayload()``), queued and freed after
/// decoding. With glibc's defaults the heap's top is trimmed back as soon as
/// the queue drains, so the next burst faults its pages in again and the kernel zeroes each one:
/// ~9 % of the pinned coordinator's core in `clear_page` in the e2e-pinned benchmark, 0.4 % with
/// this. The cost: freed heap up to what a full sightings queue held stays resident for the next
/// burst (the peak is not raised, it is only not given back).
///
/// The trim threshold governs only a heap's top. Payloads are allocated on libmosquitto's network
/// thread and decoded batches on the concurrency pool's threads, each in its own glibc arena by
/// default, and a thread's arena unmaps a whole heap of it once every chunk in it is free, whatever
/// the threshold: `e2e-pinned` still counted 3,500–16,000 page faults in a third of its rounds,
/// those rounds the slow ones (0.80–0.86 s against 0.57–0.63 s). With one arena
/// (``useOneArena()``) most measured rounds counted 0–680, more only where a round's backlog
/// outgrew every earlier one (the heap's first growth to it). The cost is a lock
/// around large allocations shared by the process's few threads (small ones go through each
/// thread's cache without it).
enum HeapRetention {
    /// Freed memory at the top of a heap kept before it is trimmed: 64 MiB, or what a queue of
    /// `queuedSightings` sightings takes (about 130 bytes each on the wire, 256 counted) when more.
    static func trimThreshold(queuedSightings: Int) -> Int32 {
        Int32(clamping: max(64 << 20, min(queuedSightings, Int(Int32.max)) * 256))
    }
    /// Allocations from this size on get a mapping of their own (glibc's fixed maximum; a fixed
    /// value also turns off its sliding threshold), so payloads always come from the heap.
    static let mmapThreshold: Int32 = 32 << 20

    /// Applies the thresholds to this process; a no-op where the C library has no `mallopt`.
    /// Returns whether both settings were taken.
    @discardableResult
    static func keepFreedMemoryForReuse(queuedSightings: Int) -> Bool {
        GlibcMalloc.set(.mmapThreshold, mmapThreshold) && GlibcMalloc.set(.trimThreshold, trimThreshold(queuedSightings: queuedSightings))
    }

    /// Every thread allocates from glibc's main arena. Takes effect only for threads that have not
    /// allocated yet: call it first thing in `main`.
    @discardableResult
    static func useOneArena() -> Bool { GlibcMalloc.set(.arenaMaximum, 1) }
}
