/// The memory ``CoordinatorEngine`` reuses from one gateway window to the next, so applying a
/// window allocates nothing once the arrays have grown: the window being resolved, the clients a
/// gateway missed, and which clients the current window heard.
struct IngestScratch {
    /// A recalled window whose arrays the next window reuses (the one its gateway's replaced).
    private var spare = RecalledWindow()
    /// Clients a gateway covered that its window did not contain.
    private var departed: [Int32] = []
    /// Per client index: the ``stamp`` of the last window that heard it.
    private var seen: [UInt32] = []
    /// The current window's stamp (never 0 once a window began).
    private(set) var stamp: UInt32 = 0

    /// Begins a window: a new stamp, and an empty ``RecalledWindow`` to resolve it into (with the
    /// capacity of an earlier one).
    mutating func beginWindow() -> RecalledWindow {
        stamp &+= 1
        if stamp == 0 {
            for i in seen.indices { seen[i] = 0 }
            stamp = 1
        }
        var window = spare
        spare = RecalledWindow()
        window.keys.removeAll(keepingCapacity: true)
        window.slots.removeAll(keepingCapacity: true)
        window.version = nil
        return window
    }

    /// `recall`, a gateway's window just replaced by a newer one, lends its arrays to the next window.
    mutating func reuse(_ recall: RecalledWindow) { spare = recall }

    /// Runs `body` with the stamps of every client slot below `slots` (those of new clients are 0).
    @inline(__always)
    mutating func withSeen<Result>(slots: Int, _ body: (UnsafeMutableBufferPointer<UInt32>) -> Result) -> Result {
        if seen.count < slots { seen.append(contentsOf: repeatElement(0, count: slots - seen.count)) }
        return seen.withUnsafeMutableBufferPointer { body($0) }
    }

    /// The window ended for the gateway whose coverage is `coverage`: every client it covers that
    /// the window did not contain misses once more; returns those reaching `limit` (see
    /// ``CoverageTable/advanceMisses(seen:stamp:limit:departed:)``). Call after ``withSeen(slots:_:)``
    /// grew the stamps to every client.
    mutating func departures(from coverage: inout CoverageTable, limit: Int) -> [Int32] {
        departed.removeAll(keepingCapacity: true)
        seen.withUnsafeBufferPointer { coverage.advanceMisses(seen: $0, stamp: stamp, limit: limit, departed: &departed) }
        return departed
    }
}
