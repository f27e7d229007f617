import BeaconKit
import RegionSync
import RegionSyncTesting
import Testing

@Suite("FakeRegionMonitor follows IOS.md")
struct FakeRegionMonitorTests {
    let region = BeaconRegion(identifier: configuration.identifier(forRegion: "r1"), identity: RegionIdentity(ref(1))!)

    @Test(
        "Enter on the first detection; exit 30 s after the last one, not before; a beacon still detected keeps it inside",
        arguments: FakeRegionMonitor<VirtualClock>.Options.Flavour.allCases)
    func enterAndExit(flavour: FakeRegionMonitor<VirtualClock>.Options.Flavour) async {
        let clock = VirtualClock()
        let fake = FakeRegionMonitor(options: .init(flavour: flavour), clock: clock)
        await fake.startMonitoring(region)
        let start = clock.now
        await fake.detect([beacon(1)], at: start.advanced(by: .seconds(1)))
        await fake.detect([beacon(1)], at: start.advanced(by: .seconds(20)))  // still in range
        await fake.advance(to: start.advanced(by: .seconds(49)))
        #expect(await fake.state(of: region.identifier) == .inside)
        await fake.advance(to: start.advanced(by: .seconds(50)))
        let expected: [RegionMonitorEvent] =
            flavour == .locationManager
            ? [.enter(identifier: region.identifier), .exit(identifier: region.identifier)]
            : [.state(identifier: region.identifier, .inside), .state(identifier: region.identifier, .outside)]
        #expect(await fake.delivered == expected)
    }

    @Test("Classic: re-adding a monitored identifier replaces it and fires a second enter while inside; CLMonitor ignores the add")
    func reAdd() async {
        for flavour in FakeRegionMonitor<VirtualClock>.Options.Flavour.allCases {
            let clock = VirtualClock()
            let fake = FakeRegionMonitor(options: .init(flavour: flavour), clock: clock)
            await fake.startMonitoring(region)
            await fake.detect([beacon(1)], at: clock.now)
            var changed = region
            changed.identity.minor = 77
            await fake.startMonitoring(changed)
            let held = await fake.monitoredRegions()
            if flavour == .locationManager {
                #expect(await fake.delivered == [.enter(identifier: region.identifier)])  // the new identity is not in range
                await fake.startMonitoring(region)
                #expect(await fake.delivered == [.enter(identifier: region.identifier), .enter(identifier: region.identifier)])
                #expect(held.first?.identity?.minor == 77)
            } else {
                #expect(held.first?.identity?.minor == 1)
                #expect(await fake.delivered == [.state(identifier: region.identifier, .inside)])
            }
        }
    }

    @Test(
        "Past 20 regions a start is refused, with a code-5 failure or silently; the app's regions count",
        arguments: FakeRegionMonitor<VirtualClock>.Options.OverLimit.allCases)
    func limit(overLimit: FakeRegionMonitor<VirtualClock>.Options.OverLimit) async {
        let fake = FakeRegionMonitor(options: .init(overLimit: overLimit), clock: VirtualClock())
        await fake.addAppRegion(identifier: "geofence")
        for index in 0..<20 {
            await fake.startMonitoring(BeaconRegion(identifier: "r\(index)", identity: RegionIdentity(ref(index))!))
        }
        #expect(await fake.monitoredRegions().count == 20)
        #expect(await fake.refusals == [.overLimit("r19")])
        let failures = await fake.delivered.filter { if case .failure = $0 { true } else { false } }
        #expect(failures.count == (overLimit == .failureEvent ? 1 : 0))
    }

    @Test("The event log reports one enter and one exit per crossing, drops re-delivered states and ignores identifiers not ours")
    func eventLogDeduplicates() async {
        let log = RegionEventLog(configuration: configuration, inside: ["r2"])
        let r1 = configuration.identifier(forRegion: "r1")
        let r2 = configuration.identifier(forRegion: "r2")
        for event: RegionMonitorEvent in [
            .state(identifier: r2, .inside),  // re-delivered at launch: already the baseline
            .enter(identifier: r1), .enter(identifier: r1),  // the double enter of a re-add
            .state(identifier: r1, .inside), .state(identifier: "app-geofence", .inside), .enter(identifier: "sdk.other"),
            .state(identifier: r2, .outside), .exit(identifier: r2),
        ] {
            await log.record(event)
        }
        #expect(await log.takeEvents().map { "\($0.type) \($0.region)" } == ["enter r1", "exit r2"])
        #expect(await log.takeEvents().isEmpty)
        #expect(await log.inside == ["r1"])
    }
}
