/// What the `CLMonitor` adapter (`RegionSyncCoreLocation.MonitorRegionMonitor`) does with
/// `CLMonitor`'s API, apart from Core Location, so that it is tested here on any platform.
package enum MonitorEventPump {
    /// Reads `subscribe()`'s events into `deliver` until the task is cancelled. When the sequence
    /// throws or ends, it waits `retryDelay` and subscribes again: `CLMonitor`'s `events` can fail,
    /// and a pump that ended there would leave every later region event undelivered.
    ///
    /// `failed` hears each error before the retry.
    package static func run<Events: AsyncSequence, C: Clock>(
        subscribe: () async -> Events, deliver: (Events.Element) -> Void, failed: (any Error) -> Void = { _ in },
        retryDelay: Duration, clock: C
    ) async where C.Duration == Duration {
        while !Task.isCancelled {
            do {
                for try await event in await subscribe() { deliver(event) }
            } catch {
                if Task.isCancelled { return }
                failed(error)
            }
            try? await clock.sleep(until: clock.now.advanced(by: retryDelay), tolerance: nil)
        }
    }

    /// The state `read()` gives once it is known: `CLMonitor` records a newly added condition's
    /// state as `.unknown` until it has looked, and answering `requestState` with that would end
    /// the wake's wait for states without saying anything. Reads every `interval` until the state
    /// is `inside`, `outside` or `unmonitored`; `.unknown` when `timeout` passes first; `nil` when
    /// `read()` finds no record (the condition is gone).
    package static func knownState<C: Clock>(
        timeout: Duration, interval: Duration, clock: C, read: () async -> RegionState?
    ) async -> RegionState? where C.Duration == Duration {
        let deadline = clock.now.advanced(by: timeout)
        while true {
            guard let state = await read() else { return nil }
            if state != .unknown { return state }
            if clock.now >= deadline || Task.isCancelled { return .unknown }
            try? await clock.sleep(until: min(clock.now.advanced(by: interval), deadline), tolerance: nil)
        }
    }
}
