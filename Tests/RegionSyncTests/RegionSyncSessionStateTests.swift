import BeaconKit
import RegionSync
import RegionSyncTesting
import Testing
import WireProtocol

/// IOS.md: some enters and exits are never delivered. Every wake asks iOS the state of the regions
/// it holds, so its first report puts right what the app (and so the coordinator) missed.
@Suite("RegionSyncSession asks iOS for its regions' states at every wake", .timeLimit(.minutes(1)))
struct RegionSyncSessionStateTests {
    @Test("an exit iOS never delivered, and an enter, are in the wake's first report; a state the app knew is not")
    func lostEventsAreReported() async throws {
        let fake = FakeRegionMonitor(options: .init(), clock: ContinuousClock())
        for index in 1...3 {
            let region = ref(index)
            await fake.startMonitoring(
                BeaconRegion(identifier: configuration.identifier(forRegion: region.id), identity: try #require(RegionIdentity(region))))
        }
        await fake.addAppRegion(identifier: "app-geofence")
        await fake.detect([beacon(2)], at: ContinuousClock.now)  // r2's enter: iOS is inside; the app never heard it
        // The app last knew r1 inside (its exit was lost) and r3 outside (as iOS has it).
        let log = RegionEventLog(configuration: configuration, inside: ["r1"])
        await log.record(.state(identifier: configuration.identifier(forRegion: "r3"), .outside))
        let pump = Task {
            for await event in fake.events.dropFirst() { await log.record(event) }  // the lost enter is not the app's
        }
        defer { pump.cancel() }

        let transport = RecordingTransport()
        let session = RegionSyncSession(
            client: try Identifier("phone-5"), topics: try Topics(), transport: transport,
            applier: RegionApplier(monitor: fake, configuration: configuration), events: log,
            options: .init(wakeBudget: .seconds(30), reportReserve: .seconds(5), regionsWait: .milliseconds(100), stateWait: .seconds(10)))
        let outcome = await session.wake()

        #expect(outcome.reportsPublished == 1, "\(outcome.errors)")
        let payload = try #require(transport.published.withLock { $0.first?.payload })
        let report = try WireCoding.decode(ClientReport.self, from: payload, topic: "report")
        #expect(report.events.map { "\($0.type) \($0.region)" }.sorted() == ["enter r2", "exit r1"])
        let asked = await fake.calls.compactMap { call -> String? in
            if case .requestState(let identifier) = call { identifier } else { nil }
        }
        #expect(Set(asked) == Set((1...3).map { configuration.identifier(forRegion: "r\($0)") }), "the app's own region is not asked")
    }
}
