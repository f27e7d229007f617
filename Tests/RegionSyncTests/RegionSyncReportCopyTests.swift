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

    @Test("with reportCopy the report goes out at QoS 0 and the same bytes at QoS 1 on the same topic")
    func copyBeside() async throws {
        // Sent side by side (the transport may put them on two connections): no order between them.
        let published = await wake(reportCopy: true)
        #expect(published.map(\.qos).sorted() == [0, 1])
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

    @Test("A QoS 1 report stalled on the broker does not keep the wake from the answer to its copy; its events stay for the next wake")
    func stalledReport() async throws {
        let v1 = (0..<3).map { ref($0) }
        let transport = StalledReportTransport(answer: try WireCoding.encode(message(1, v1)))
        let log = RegionEventLog(configuration: configuration)
        await log.record(.enter(identifier: configuration.identifier(forRegion: "r1")))
        let fake = FakeRegionMonitor(options: .init(), clock: ContinuousClock())
        let session = RegionSyncSession(
            client: try Identifier("phone-4"), topics: try Topics(), transport: transport,
            applier: RegionApplier(monitor: fake, configuration: configuration), events: log,
            // The wake lasts until its deadline (the QoS 1 publishes never finish): long enough for a
            // starved machine to connect, subscribe and apply, short enough for a test.
            options: .init(
                wakeBudget: .seconds(10), reportReserve: .seconds(2), regionsWait: .seconds(6), linger: .milliseconds(100),
                reportCopy: true))
        let outcome = await session.wake()

        #expect(outcome.applied.map(\.version) == [1], "\(outcome.errors)")
        #expect(outcome.applied.first?.completed == true)
        #expect(
            Set(await fake.monitoredRegions().compactMap { configuration.region(forIdentifier: $0.identifier) }) == Set(v1.map(\.id)))
        #expect(outcome.reportsPublished == 0)
        #expect(outcome.errors.contains(.deadline("publish the report")), "\(outcome.errors)")
        let copies = try transport.copies.withLock { $0 }.map { try WireCoding.decode(ClientReport.self, from: $0, topic: "report") }
        #expect(copies.first?.events.map(\.region) == ["r1"])
        #expect(await log.takeEvents().map(\.region).contains("r1"))
    }
}

/// A transport to a NATS node whose JetStream leader died: QoS 1 publishes never finish, QoS 0
/// copies go through, and the coordinator answers the first copy with a `regions` message.
final class StalledReportTransport: RegionSyncTransport {
    let answer: [UInt8]
    let copies = Mutex<[[UInt8]]>([])
    private let regions = Mutex<AsyncStream<[UInt8]>.Continuation?>(nil)

    init(answer: [UInt8]) { self.answer = answer }

    func connect() async throws(RegionSyncError) {}
    func subscribe(_ topic: String) async throws(RegionSyncError) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream()
        regions.withLock { $0 = continuation }  // no retained message yet
        return stream
    }
    func publish(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }  // never acknowledged
    }
    func publishCopy(_ payload: [UInt8], to topic: String) async throws(RegionSyncError) {
        let first = copies.withLock {
            $0.append(payload); return $0.count == 1
        }
        if first { _ = regions.withLock { $0?.yield(answer) } }
    }
    func disconnect() async { regions.withLock { $0?.finish() } }
}
