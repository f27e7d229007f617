import RegionSync
import RegionSyncTesting
import Synchronization
import Testing

/// An event source that fails (or ends) after some events, as `CLMonitor.events` can.
final class FlakyEvents: Sendable {
    /// The events of each subscription, and whether it then throws (`true`) or ends.
    let script: [([Int], Bool)]
    let subscriptions = Mutex(0)

    struct Failure: Error {}

    init(_ script: [([Int], Bool)]) { self.script = script }

    func subscribe() -> AsyncThrowingStream<Int, any Error> {
        let n = subscriptions.withLock {
            $0 += 1
            return $0 - 1
        }
        let (events, fails) = n < script.count ? script[n] : ([], false)
        return AsyncThrowingStream { continuation in
            for event in events { continuation.yield(event) }
            if n >= script.count { return }  // the last subscription stays open
            continuation.finish(throwing: fails ? Failure() : nil)
        }
    }
}

@Suite("The CLMonitor adapter's pump and state reads", .timeLimit(.minutes(1)))
struct MonitorEventPumpTests {
    @Test("the pump subscribes again after an error or an end, and delivers every event in order")
    func resubscribes() async throws {
        let source = FlakyEvents([([1, 2], true), ([3], false), ([4, 5], true)])
        let delivered = Mutex<[Int]>([])
        let errors = Mutex(0)
        let clock = VirtualClock()
        let pump = Task {
            await MonitorEventPump.run(
                subscribe: { source.subscribe() }, deliver: { event in delivered.withLock { $0.append(event) } },
                failed: { _ in errors.withLock { $0 += 1 } }, retryDelay: .seconds(1), clock: clock)
        }
        while source.subscriptions.withLock({ $0 }) < 4 { await Task.yield() }  // the fourth stays open
        pump.cancel()
        await pump.value
        #expect(delivered.withLock { $0 } == [1, 2, 3, 4, 5])
        #expect(errors.withLock { $0 } == 2)
        #expect(source.subscriptions.withLock { $0 } == 4)
        #expect(clock.now.offset >= .seconds(3), "a pause before each subscription again")
    }

    @Test("a state unknown at first is read again until known; unknown at the timeout; nil when the record is gone")
    func knownState() async {
        let clock = VirtualClock()
        let reads = Mutex(0)
        let known = await MonitorEventPump.knownState(timeout: .seconds(2), interval: .milliseconds(100), clock: clock) {
            reads.withLock {
                $0 += 1
                return $0 < 4 ? RegionState.unknown : .inside
            }
        }
        #expect(known == .inside && reads.withLock { $0 } == 4)
        #expect(clock.now.offset == .milliseconds(300))

        let start = clock.now
        let never = await MonitorEventPump.knownState(timeout: .seconds(2), interval: .milliseconds(100), clock: clock) { .unknown }
        #expect(never == .unknown)
        #expect(start.duration(to: clock.now) == .seconds(2))

        #expect(await MonitorEventPump.knownState(timeout: .seconds(2), interval: .milliseconds(100), clock: clock) { nil } == nil)
        #expect(await MonitorEventPump.knownState(timeout: .zero, interval: .milliseconds(100), clock: clock) { .outside } == .outside)
    }
}
