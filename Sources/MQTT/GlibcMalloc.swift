#if canImport(Glibc)
    import Glibc
#endif

/// glibc's `mallopt`, for the processes that receive this module's payloads: how many arenas
/// their threads allocate from and when freed memory goes back to the kernel (a large payload
/// taken with ``ReceivedMessage/takePayload()`` lives in libmosquitto's allocation from the network
/// thread and is freed by whichever thread is done with it).
///
/// Glibc's module map leaves out <malloc.h>, so `mallopt` is looked up by name and the parameters
/// are the values that header gives them.
public enum GlibcMalloc {
    /// The `mallopt` parameters used here.
    public enum Parameter: Int32, Sendable {
        /// M_TRIM_THRESHOLD: free memory kept at a heap's top before it is trimmed.
        case trimThreshold = -1
        /// M_MMAP_THRESHOLD: allocations from this size on get a mapping of their own.
        case mmapThreshold = -3
        /// M_ARENA_MAX: the most arenas. Only threads that have not allocated yet follow it (a
        /// thread keeps the arena its first allocation gave it): set it first thing in `main`.
        case arenaMaximum = -8
    }

    /// Calls `mallopt(parameter, value)`; `false` where it refused or the C library has none.
    @discardableResult
    public static func set(_ parameter: Parameter, _ value: Int32) -> Bool {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
            return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)(parameter.rawValue, value) == 1
        #else
            return false
        #endif
    }
}
