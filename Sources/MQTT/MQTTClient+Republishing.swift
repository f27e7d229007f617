public import Logging
import ServiceLifecycle

extension MQTTClient {
    /// How a service that keeps retained messages on the broker up to date runs (the gateway
    /// directory, the Home Assistant bridge), until graceful shutdown or cancellation.
    ///
    /// Nothing happens before the client's first connection (what is queued before it is lost);
    /// the wait ends at shutdown, so a broker that never answers cannot hold the coordinator's exit.
    /// Then `topic` is subscribed to, not awaited here (a subscription waits for its
    /// acknowledgement across reconnections, and ends, closed, when the connection does), with a
    /// warning ending in `consequence` if that fails; and `round` runs every `tick`, while every
    /// reconnection after the first calls `reconnected` (the broker may have restarted and lost
    /// what was retained: everything again).
    public func runRepublishing(
        subscribingTo topic: String, logger: Logger, unsubscribed consequence: String,
        reconnected: @escaping @Sendable () -> Void, every tick: Duration, round: () async -> Void
    ) async {
        for await state in connectionStates.cancelOnGracefulShutdown() {
            if case .connected = state { break }
        }
        guard !Task.isCancelled && !Task.isShuttingDownGracefully else { return }
        Task { [self] in
            do {
                try await subscribe(topic, qos: .atLeastOnce)
            } catch {
                logger.warning("cannot subscribe to \(topic): \(error); \(consequence)")
            }
        }
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                var connections = 0
                for await state in connectionStates {
                    guard case .connected = state else { continue }
                    connections += 1
                    if connections > 1 { reconnected() }
                }
            }
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                await round()
                try? await Task.sleep(for: tick)
            }
            group.cancelAll()
        }
    }
}
