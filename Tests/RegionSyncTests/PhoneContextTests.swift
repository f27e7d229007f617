import RegionSync
import RegionSyncTesting
import Testing
import WireProtocol

/// A monitor that names its back end and reads an authorization, around the fake iOS (as the Core
/// Location adapters do around Core Location).
struct StatingMonitor<C: Clock>: RegionMonitor where C.Duration == Duration {
    let fake: FakeRegionMonitor<C>
    let authorization: LocationAuthorization?

    var backEnd: RegionMonitorBackEnd? { .monitor }
    func locationAuthorization() async -> LocationAuthorization? { authorization }
    func startMonitoring(_ region: BeaconRegion) async { await fake.startMonitoring(region) }
    func stopMonitoring(identifier: String) async { await fake.stopMonitoring(identifier: identifier) }
    func requestState(identifier: String) async { await fake.requestState(identifier: identifier) }
    func monitoredRegions() async -> [MonitoredRegion] { await fake.monitoredRegions() }
    var events: AsyncStream<RegionMonitorEvent> { fake.events }
}

@Suite("What the phone says about itself", .timeLimit(.minutes(1)))
struct PhoneContextTests {
    @Test("every report of a wake carries the app's context with the monitor's back end and authorization")
    func wakeReports() async throws {
        let transport = RecordingTransport()
        let monitor = StatingMonitor(fake: FakeRegionMonitor(options: .init(), clock: ContinuousClock()), authorization: .whenInUse)
        let context = PhoneContext(os: "iOS 17.5.1", backgroundRefresh: .available, lowPowerMode: false, launch: .location)
        let session = RegionSyncSession(
            client: try Identifier("phone-5"), topics: try Topics(), transport: transport,
            applier: RegionApplier(monitor: monitor, configuration: configuration), events: RegionEventLog(configuration: configuration),
            options: .init(
                wakeBudget: .seconds(30), reportReserve: .seconds(5), regionsWait: .milliseconds(100), linger: .milliseconds(100)),
            context: context)
        let outcome = await session.wake()
        #expect(outcome.reportsPublished == 1, "\(outcome.errors)")
        let expected = PhoneStatus(
            backEnd: .monitor, os: "iOS 17.5.1", authorization: .whenInUse, backgroundRefresh: .available, lowPower: false,
            launch: .location)
        #expect(outcome.lastReport?.phone == expected)
        let published = try #require(transport.published.withLock { $0 }.last)
        #expect(try WireCoding.decode(ClientReport.self, from: published.payload, topic: "report").phone == expected)
        #expect(expected.wakeability == .no, "When In Use gets no background wakes")
    }

    @Test("the app's authorization wins over the monitor's; a monitor that says nothing and no context: no phone field")
    func builder() async {
        let fake = FakeRegionMonitor(options: .init(), clock: ContinuousClock())
        let builder = RegionReportBuilder(configuration: configuration)
        let bare = await builder.report(from: fake, ranged: [], events: [], version: nil)
        #expect(bare.phone == nil)
        let stating = StatingMonitor(fake: fake, authorization: .whenInUse)
        let report = await builder.report(
            from: stating, ranged: [], events: [], version: nil, context: PhoneContext(authorization: .always))
        #expect(report.phone == PhoneStatus(backEnd: .monitor, authorization: .always))
        #expect(PhoneContext().status(backEnd: nil, authorization: nil) == nil)
    }

    @Test("a long OS name is cut at a character boundary, so the report is never refused for it")
    func longOS() throws {
        let name = "iOS " + String(repeating: "é", count: 40)  // 84 bytes
        let status = try #require(PhoneContext(os: name).status(backEnd: .classic, authorization: nil))
        let os = try #require(status.os)
        #expect(os.utf8.count <= PhoneStatus.maximumOSBytes && os.utf8.count >= PhoneStatus.maximumOSBytes - 1)
        #expect(name.hasPrefix(os))
        #expect(throws: Never.self) { try ClientReport(phone: status).validate(topic: "report") }
    }
}
