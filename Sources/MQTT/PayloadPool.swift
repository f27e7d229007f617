/// Received payloads' buffers kept for reuse (``MQTTConfiguration/payloadPoolBytes``): a consumer
/// done with a large payload gives it back (``MQTTClient/recycle(_:)``), and the next message of
/// that size is copied out of libmosquitto into it instead of into fresh memory.
///
/// Why: a sightings batch of 1,000 is about 187 KB. Fresh memory for each one comes from the
/// network thread's glibc arena, which unmaps a whole 64 MiB heap as soon as it empties; so each
/// burst that outgrew the last one faulted its pages in again and the kernel zeroed every one. In
/// the pinned end-to-end benchmark that was 11 % of the coordinator's core (`perf record`, page
/// faults under the copy in `ClientCore.didReceive`).
///
/// What it costs: buffers stay resident while they keep being needed. A buffer the pool held
/// through a whole ``releasePeriod`` without it ever being taken is freed, so after a burst the
/// memory goes back within two periods.
final class PayloadPool: Sendable {
    /// Payloads below this size are not pooled: allocating them costs little, and they would
    /// crowd the pool.
    static let minimumBytes = 16 << 10
    /// How long a buffer may sit unused before the pool frees it: long enough that bursts a few
    /// tens of seconds apart (a gateway fleet reconnecting, a backlog draining in steps) find
    /// their buffers, short enough that a one-off burst's memory goes back within two minutes.
    static let releasePeriod: Duration = .seconds(60)

    /// The most bytes of capacity the pool holds.
    let limit: Int
    private let state: Locked<State>

    private struct State {
        var buffers: [[UInt8]] = []
        var bytes = 0
        /// The fewest buffers held since `periodStart`: that many were not needed in the period.
        var lowWater = 0
        var periodStart: ContinuousClock.Instant
    }

    init(limit: Int, now: ContinuousClock.Instant = .now) {
        self.limit = limit
        self.state = Locked(State(periodStart: now))
    }

    /// The capacity a pooled buffer is given for a payload of `count` bytes: 1/32 more, rounded up
    /// to 16 KiB, so that the next payload of about the same size (a batch a few bytes longer)
    /// fits. An exact fit made such a payload grow the buffer, to twice its size and in fresh
    /// memory (`append`'s growth): page faults again, and half as many buffers under the limit
    /// (the pinned end-to-end benchmark's rounds with 3,500–11,000 page faults were its slow ones).
    static func capacity(for count: Int) -> Int {
        let step = 16 << 10
        return (count + count / 32 + step - 1) / step * step
    }

    /// A copy of `bytes`, in a kept buffer when one is free.
    func copy(_ bytes: UnsafeRawBufferPointer, now: ContinuousClock.Instant = .now) -> [UInt8] {
        guard bytes.count >= Self.minimumBytes else { return Array(bytes) }
        var buffer = take(now: now) ?? []
        buffer.removeAll(keepingCapacity: true)
        if buffer.capacity < bytes.count { buffer.reserveCapacity(Self.capacity(for: bytes.count)) }
        buffer.append(contentsOf: UnsafeBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
        return buffer
    }

    /// Keeps `payload`'s storage for a later ``copy(_:now:)``, unless it is small or the pool is full.
    /// Only worth it when nothing else holds the array (otherwise the next copy into it allocates anew).
    func give(_ payload: [UInt8], now: ContinuousClock.Instant = .now) {
        let capacity = payload.capacity
        guard capacity >= Self.minimumBytes else { return }
        let released: [[UInt8]] = state.withLock { state in
            let released = Self.releaseIdle(&state, now: now)
            if state.bytes + capacity <= limit {
                state.buffers.append(payload)
                state.bytes += capacity
            }
            return released
        }
        _ = released  // freed here, outside the lock
    }

    /// Buffers held and their capacity in bytes.
    var held: (count: Int, bytes: Int) { state.withLock { ($0.buffers.count, $0.bytes) } }

    private func take(now: ContinuousClock.Instant) -> [UInt8]? {
        var released: [[UInt8]] = []
        let buffer: [UInt8]? = state.withLock { state in
            released = Self.releaseIdle(&state, now: now)
            guard let buffer = state.buffers.popLast() else { return nil }
            state.bytes -= buffer.capacity
            state.lowWater = min(state.lowWater, state.buffers.count)
            return buffer
        }
        _ = released
        return buffer
    }

    /// At the end of a period: the buffers none of it needed (the low water mark's worth, the
    /// longest held) leave the pool.
    private static func releaseIdle(_ state: inout State, now: ContinuousClock.Instant) -> [[UInt8]] {
        guard now - state.periodStart >= releasePeriod else { return [] }
        let idle = state.lowWater
        state.periodStart = now
        guard idle > 0 else {
            state.lowWater = state.buffers.count
            return []
        }
        let released = Array(state.buffers.prefix(idle))
        state.buffers.removeFirst(idle)
        state.bytes -= released.reduce(0) { $0 + $1.capacity }
        state.lowWater = state.buffers.count
        return released
    }
}
