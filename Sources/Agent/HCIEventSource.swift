/// Where HCI events come from: a live adapter (``HCIAdapterSource``) or a recorded capture
/// (``CaptureReplaySource``). The pipeline reads both through this one protocol, so the tests run
/// the exact code a gateway runs, fed with recorded bytes.
///
/// A source is used from one thread at a time (the pipeline's), so it need not be `Sendable`.
public protocol HCIEventSource: AnyObject {
    /// What the agent reports as its adapter: `hci0`, or `replay:FILE`.
    var name: String { get }

    /// Reads the next HCI packet, waiting at most `timeout` seconds.
    ///
    /// Calls `body` at most once, with the packet's time in microseconds since 1970 and its
    /// bytes with the H4 packet-type byte first (`04` for an event). The bytes are valid only
    /// inside `body`.
    /// - Returns: ``HCIReadStatus/packet`` when `body` was called, ``HCIReadStatus/idle(now:)``
    ///   when the timeout passed first, ``HCIReadStatus/end`` when the source is exhausted.
    func read(timeout: Double, _ body: (_ timeMicros: Int64, _ packet: UnsafeRawBufferPointer) -> Void) throws -> HCIReadStatus

    /// How many packets the source has produced so far; a replay can resume after this many.
    var position: UInt64 { get }

    /// Stops reading and restores the adapter's previous state. Safe to call twice.
    func close()

    /// A stable identity of a replayable source (its file and size), for resuming; `nil` for a live adapter.
    var checkpointIdentity: UInt64? { get }

    /// Skips the first `packets` packets (resuming a replay); a live source ignores it.
    func skip(packets: UInt64) throws

    /// Records the source itself could not read (a damaged capture), counted and skipped.
    var malformedPackets: UInt64 { get }
}

/// What one ``HCIEventSource/read(timeout:_:)`` call produced.
public enum HCIReadStatus: Sendable, Equatable {
    /// A packet was passed to the body.
    case packet
    /// Nothing arrived within the timeout; `now` is the source's clock (µs since 1970), so windows
    /// can close while the radio is silent.
    case idle(now: Int64)
    /// The source has nothing more (the end of a capture).
    case end
}

extension HCIEventSource {
    /// A stable identity of a replayable source (its file and size), for resuming; `nil` for a live adapter.
    public var checkpointIdentity: UInt64? { nil }

    /// Skips the first `packets` packets (resuming a replay); a live source ignores it.
    public func skip(packets: UInt64) throws {}

    public var malformedPackets: UInt64 { 0 }
}
