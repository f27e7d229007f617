import RegionSync
import RegionSyncTesting
import Synchronization
import Testing
import WireProtocol

/// A transport that answers at once and records what was published, at which QoS, in order.
final class RecordingTransport: RegionSyncTransport {
    let published = Mutex<[(qos: Int, topic: String, payload: [UInt8])]>([])

    func connect() async throws(RegionSyncError) {}
    func subscribe(_ topic: String) async throws(RegionSyncError) -> AsyncStream<[UInt8]> {
        AsyncStream { $0.finish() }  // no retained message
    }
    func publish(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        published.withLock { $0.append((1, topic, payload)) }
    }
    func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        published.withLock { $0.append((0, topic, payload)) }
    }
    func disconnect() async {}
}

@Suite("RegionSyncSession's report copies", .timeLimit(.minutes(1)))
struct RegionSyncReportCopyTests {
    func wake(reportCopy: Bool) async -> [(qos: Int, topic: String, payload: [UInt8])] {
        let transport = RecordingTransport()
        let log = RegionEventLog(configuration: configuration)
        await log.record(.enter(identifier: configuration.identifier(forRegion: "r1")))
        let fake = FakeRegionMonitor(options: .init(), clock: ContinuousClock())
        let session = RegionSyncSession(
            client: try! Identifier("phone-3"), topics: try! Topics(), transport: transport,
            applier: RegionApplier(monitor: fake, configuration: configuration), events: log,
            // A budget no starved machine runs out of: the transport answers at once and no regions
            // message comes, so the wake never waits for it (2 s ran out before the subscribe when
            // the whole suite started at once on 2 cores).
            options: .init(
                wakeBudget: .seconds(30), reportReserve: .seconds(5), regionsWait: .milliseconds(100), linger: .milliseconds(100),
                reportCopy: reportCopy))
        let outcome = await session.wake()
        #expect(outcome.reportsPublished == 1, "\(outcome.errors)")
        return transport.published.withLock { $0 }
    }

    @Test("with reportCopy the report goes out at QoS 0 first, then the same bytes at QoS 1 on the same topic")
    func copyFirst() async throws {
        let published = await wake(reportCopy: true)
        #expect(published.map(\.qos) == [0, 1])
        #expect(published.count == 2 && published[0].payload == published[1].payload && published[0].topic == published[1].topic)
        #expect(published.first?.topic == (try Topics()).clientReport(try Identifier("phone-3")))
        let report = try WireCoding.decode(ClientReport.self, from: try #require(published.last).payload, topic: "report")
        #expect(report.events.map(\.region) == ["r1"])
    }

    @Test("without it, one QoS 1 report only (the default)")
    func noCopy() async {
        #expect(await wake(reportCopy: false).map(\.qos) == [1])
        #expect(RegionSyncSession<ContinuousClock>.Options().reportCopy == false)
    }
}
