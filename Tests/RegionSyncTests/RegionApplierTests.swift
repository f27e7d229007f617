import BeaconKit
import RegionSync
import RegionSyncTesting
import Testing
import WireProtocol

@Suite("RegionApplier: each of iOS's rules, against the fake in both flavours")
struct RegionApplierTests {
    @Test(
        "The first message converges to the whole set, asks each added region's state, and records the version", arguments: everyFakeVariant
    )
    func firstMessage(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options)
        let outcome = await world.applier.apply(message(1, (0..<5).map { ref($0) }))
        #expect(outcome.path == .full)
        #expect(outcome.held == ["r0", "r1", "r2", "r3", "r4"])
        #expect(outcome.leftOut.isEmpty && outcome.failures.isEmpty && outcome.completed)
        #expect(await world.calls() == (0..<5).map { "start r\($0)" } + (0..<5).map { "state r\($0)" })
        #expect(await world.applier.appliedVersion == 1)
    }

    @Test(
        "The next version uses the diff: only its removes and adds are called, removes first, then a wait of at least 0.1 s",
        arguments: everyFakeVariant)
    func diffPath(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options) { $0.restartGapCoversEveryRegion = true }
        let v1 = (0..<5).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        let before = await world.fake.calls.count
        let sleepsBefore = world.clock.sleeps.count
        let v2 = [ref(5)] + (1..<5).map { ref($0) }
        let outcome = await world.applier.apply(message(2, v2, after: v1))
        #expect(outcome.path == .diff)
        #expect(await world.calls(from: before) == ["stop r0", "start r5", "state r5"])
        #expect(world.clock.sleeps[sleepsBefore] >= .milliseconds(100))
        #expect(await world.fake.refusals.isEmpty)
        #expect(Set(await world.ours()) == Set(v2.map(\.id)))
        #expect(outcome.held == ["r5", "r1", "r2", "r3", "r4"])
    }

    @Test(
        "A lost message (a version gap) converges to the whole set instead of applying a diff it cannot follow", arguments: everyFakeVariant
    )
    func lostMessage(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options)
        let v1 = (0..<5).map { ref($0) }
        let v2 = (1..<6).map { ref($0) }
        let v3 = (2..<8).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        let outcome = await world.applier.apply(message(3, v3, after: v2))  // v2 never arrived: its diff drops r1 only
        #expect(outcome.path == .full)
        #expect(Set(await world.ours()) == Set(v3.map(\.id)))
        #expect(await world.fake.unchangedReAdds.isEmpty)
    }

    @Test("When iOS no longer holds the applied set, the next version converges to the whole set", arguments: everyFakeVariant)
    func driftedMonitor(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options)
        let v1 = (0..<5).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        await world.fake.removeAppRegion(identifier: world.identifier("r2"))  // iOS dropped it behind our back
        let v2 = v1 + [ref(5)]
        let outcome = await world.applier.apply(message(2, v2, after: v1))
        #expect(outcome.path == .full)
        #expect(Set(await world.ours()) == Set(v2.map(\.id)))
    }

    @Test("A retained re-delivery of the applied version, or an older one, calls nothing", arguments: everyFakeVariant)
    func redelivery(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options)
        let v1 = (0..<3).map { ref($0) }
        let v2 = (1..<4).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        _ = await world.applier.apply(message(2, v2, after: v1))
        let before = await world.fake.calls.count
        let again = await world.applier.apply(message(2, v2, after: v1))
        let older = await world.applier.apply(message(1, v1))
        #expect(again.path == .ignored && older.path == .ignored)
        #expect(await world.fake.calls.count == before)
        #expect(await world.applier.appliedVersion == 2)
    }

    @Test(
        "An unchanged region is never registered again; one whose identity changed is stopped, and started after the gap",
        arguments: everyFakeVariant)
    func identityChange(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options) {
            $0.restartGapCoversEveryRegion = false  // the gap rule as IOS.md states it: the same identifier
        }
        let v1 = (0..<3).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        let before = await world.fake.calls.count
        let v2 = [ref(0), ref(1, minor: 99), ref(2)]
        let outcome = await world.applier.apply(message(2, v2, after: v1))
        #expect(await world.calls(from: before) == ["stop r1", "start r1", "state r1"])
        #expect(outcome.failures.isEmpty)
        #expect(await world.oursWithIdentity()["r1"]?.minor == 99)
        #expect(await world.fake.unchangedReAdds.isEmpty)
        #expect(await world.fake.refusals.isEmpty)
    }

    @Test(
        "Budget: the app's own regions take slots; the plan's first regions get the rest, the others are left out, nothing is refused",
        arguments: everyFakeVariant)
    func budgetWithAppRegions(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options)
        await world.fake.addAppRegion(identifier: "store-geofence")
        await world.fake.addAppRegion(identifier: "app-beacon", identity: RegionIdentity(uuid: BeaconUUID(venueUUID)!, major: 7))
        await world.fake.addAppRegion(identifier: "sdk.other")
        let plan = (0..<20).map { ref($0) }
        let outcome = await world.applier.apply(message(1, plan))
        #expect(outcome.budget == 17)
        #expect(outcome.held == (0..<17).map { "r\($0)" })
        #expect(outcome.leftOut == ["r17", "r18", "r19"])
        #expect(outcome.failures.isEmpty)
        #expect(await world.fake.refusals.isEmpty)
        let identifiers = await world.fake.monitoredRegions().map(\.identifier)
        #expect(identifiers.prefix(3) == ["store-geofence", "app-beacon", "sdk.other"])
        let calls = await world.fake.calls
        #expect(calls.allSatisfy { configuration.owns($0.identifier) })
        let report = RegionReportBuilder(configuration: configuration).report(
            held: await world.fake.monitoredRegions(), ranged: [], events: [], version: await world.applier.appliedVersion)
        #expect(report.budget == 17)
        #expect(report.monitored == (0..<17).map { "r\($0)" }.sorted())
        #expect(report.version == 1)
    }

    @Test(
        "Past the real limit iOS refuses (silently or with code 5): the held slots go to the plan's first regions and the rest is reported",
        arguments: everyFakeVariant)
    func refusalKeepsPriority(options: FakeRegionMonitor<VirtualClock>.Options) async {
        let world = World(options) {
            $0.slotLimit = 6  // this device holds fewer than the 20 RegionSync assumes
        }
        let log = RegionEventLog(configuration: configuration)
        let v1 = (10..<15).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        let v2 = (0..<5).map { ref($0) } + v1  // r0...r4 come first in the plan
        let outcome = await world.applier.apply(message(2, v2, after: v1))
        #expect(outcome.held == ["r0", "r1", "r2", "r3", "r4", "r10"])
        #expect(outcome.leftOut == ["r11", "r12", "r13", "r14"])
        #expect(Set(await world.ours()) == Set(outcome.held))
        #expect(!(await world.fake.refusals.isEmpty))
        for event in await world.fake.delivered { await log.record(event) }
        let failures = await log.takeFailures()
        if options.overLimit == .failureEvent {
            #expect(!failures.isEmpty && failures.values.allSatisfy { $0.code == RegionMonitorError.regionMonitoringFailure })
        } else {
            #expect(failures.isEmpty)
        }
    }

    @Test(
        "A start within 0.1 s of a stop of the same identifier is refused with code 5 (the fake's rule the applier's gap avoids)",
        arguments: FakeRegionMonitor<VirtualClock>.Options.Flavour.allCases)
    func restartTooSoon(flavour: FakeRegionMonitor<VirtualClock>.Options.Flavour) async {
        let world = World(.init(flavour: flavour))
        let region = BeaconRegion(identifier: world.identifier("r0"), identity: RegionIdentity(ref(0))!)
        await world.fake.startMonitoring(region)
        await world.fake.stopMonitoring(identifier: region.identifier)
        world.clock.advance(by: .milliseconds(99))
        await world.fake.startMonitoring(region)
        #expect(await world.fake.refusals == [.tooSoonAfterStop(region.identifier)])
        guard case .failure(let identifier, let error)? = await world.fake.delivered.last else {
            Issue.record("no failure event")
            return
        }
        #expect(identifier == region.identifier && error.code == RegionMonitorError.regionMonitoringFailure)
        world.clock.advance(by: .milliseconds(1))
        await world.fake.startMonitoring(region)
        #expect(await world.fake.monitoredRegions().map(\.identifier) == [region.identifier])
    }

    @Test(
        "A region added while its beacon is in range fires no enter; the state asked for says inside and the log reports an enter",
        arguments: FakeRegionMonitor<VirtualClock>.Options.Flavour.allCases)
    func requestStateOnAdd(flavour: FakeRegionMonitor<VirtualClock>.Options.Flavour) async {
        let world = World(.init(flavour: flavour))
        await world.fake.detect([beacon(3)], at: world.clock.now)
        _ = await world.applier.apply(message(1, [ref(3), ref(4)]))
        let delivered = await world.fake.delivered
        #expect(!delivered.contains(.enter(identifier: world.identifier("r3"))))
        #expect(delivered == [.state(identifier: world.identifier("r3"), .inside), .state(identifier: world.identifier("r4"), .outside)])
        let log = RegionEventLog(configuration: configuration)
        for event in delivered { await log.record(event) }
        #expect(await log.takeEvents().map { "\($0.type) \($0.region)" } == ["enter r3"])
    }

    @Test("A condition CLMonitor gave up (.unmonitored) stays listed but is not reported as monitored; the next message restarts it")
    func unmonitoredCondition() async {
        let world = World(.init(flavour: .monitor))
        let v1 = (0..<3).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        await world.fake.giveUp(identifier: world.identifier("r1"))
        #expect(await world.ours() == ["r0", "r1", "r2"])
        let report = RegionReportBuilder(configuration: configuration).report(
            held: await world.fake.monitoredRegions(), ranged: [], events: [], version: 1)
        #expect(report.monitored == ["r0", "r2"])
        let before = await world.fake.calls.count
        _ = await world.applier.apply(message(2, v1, after: v1))
        #expect(await world.calls(from: before) == ["stop r1", "start r1", "state r1"])
        #expect(await world.fake.state(of: world.identifier("r1")) == .outside)
    }

    @Test("A deadline that comes before the adds leaves the version unrecorded, so the same message is applied again")
    func deadline() async {
        let world = World()
        let v1 = (0..<3).map { ref($0) }
        _ = await world.applier.apply(message(1, v1))
        let v2 = (3..<6).map { ref($0) }
        let cut = await world.applier.apply(message(2, v2, after: v1), deadline: world.clock.now.advanced(by: .milliseconds(120)))
        #expect(!cut.completed)
        #expect(cut.appliedVersion == 1)
        #expect(await world.ours().isEmpty)  // the stops were made, the starts were not
        let again = await world.applier.apply(message(2, v2, after: v1))
        #expect(again.completed && again.path == .full)
        #expect(Set(await world.ours()) == ["r3", "r4", "r5"])
    }

    @Test("The applied version and set survive a relaunch through the store")
    func persistence() async throws {
        let store = InMemoryRegionSyncStore()
        let first = World(store: store)
        let v1 = (0..<3).map { ref($0) }
        _ = await first.applier.apply(message(1, v1))
        let relaunched = RegionApplier(monitor: first.fake, store: store, configuration: configuration, clock: first.clock)
        #expect(await relaunched.appliedVersion == 1)
        let before = await first.fake.calls.count
        let outcome = await relaunched.apply(message(2, v1 + [ref(3)], after: v1))
        #expect(outcome.path == .diff)
        #expect(await first.calls(from: before) == ["start r3", "state r3"])
    }
}
