import RegionSync
import RegionSyncTesting
import Testing
import WireProtocol

/// A transport that publishes nothing and whose connect or subscribe never finishes (a broker
/// that does not answer).
struct StuckTransport: RegionSyncTransport {
    var connects: Bool

    func connect() async throws(RegionSyncError) {
        if !connects { await hang() }
    }
    func subscribe(_ topic: String) async throws(RegionSyncError) -> AsyncStream<[UInt8]> {
        AsyncStream { _ in }  // the retained message never comes
    }
    func publish(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        await hang()
    }
    func disconnect() async {}

    private func hang() async {
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }  // never resumed, like a dead socket
    }
}

@Suite("RegionSyncSession gives up cleanly at its deadline", .timeLimit(.minutes(1)))
struct RegionSyncSessionDeadlineTests {
    func session(_ transport: StuckTransport, log: RegionEventLog) -> RegionSyncSession<ContinuousClock> {
        let fake = FakeRegionMonitor(options: .init(), clock: ContinuousClock())
        return RegionSyncSession(
            client: try! Identifier("phone-2"), topics: try! Topics(), transport: transport,
            applier: RegionApplier(monitor: fake, configuration: configuration), events: log,
            options: .init(wakeBudget: .seconds(2), reportReserve: .milliseconds(500), regionsWait: .seconds(10), linger: .seconds(1))
        )
    }

    @Test("A connect that never finishes ends the wake at the deadline with the step named, and the events stay for the next wake")
    func connectNeverFinishes() async {
        let log = RegionEventLog(configuration: configuration)
        await log.record(.enter(identifier: configuration.identifier(forRegion: "r1")))
        let outcome = await session(StuckTransport(connects: false), log: log).wake()
        #expect(!outcome.connected)
        #expect(outcome.errors == [.deadline("connect")])
        #expect(outcome.reportsPublished == 0)
        // The wake's measure of itself: it gave up at its work deadline (2 s less the 0.5 s reserve).
        #expect(outcome.elapsed >= .milliseconds(1500) && outcome.elapsed < .seconds(30), "\(outcome.elapsed)")
        #expect(await log.takeEvents().map(\.region) == ["r1"])
    }

    @Test("No regions message and reports that are never acknowledged: the wake still ends, saying what it did not do")
    func nothingArrives() async {
        let log = RegionEventLog(configuration: configuration)
        await log.record(.enter(identifier: configuration.identifier(forRegion: "r1")))
        let outcome = await session(StuckTransport(connects: true), log: log).wake()
        #expect(outcome.connected)
        #expect(outcome.applied.isEmpty)
        #expect(outcome.reportsPublished == 0)
        #expect(outcome.errors.contains(.deadline("publish the report")))
        // Which earlier step the deadline stopped depends on how busy the machine is (waiting for
        // the regions message, normally; on a starved machine, the subscribe): only deadlines.
        #expect(outcome.errors.allSatisfy { if case .deadline = $0 { true } else { false } }, "\(outcome.errors)")
        #expect(outcome.errors.count >= 2, "\(outcome.errors)")
        #expect(await log.takeEvents().map(\.region) == ["r1"])
    }
}
