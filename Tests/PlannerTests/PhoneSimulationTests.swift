import BeaconKit
import Foundation
import Testing
import Topology
import WireProtocol

@testable import Simulator

/// Phones under iOS's rules: the strategies compared on the same walks.
@Suite struct PhoneSimulationTests {
    /// A suspended phone on the museum, located by what it ranges while awake: the frontier
    /// planner covers more arrivals than nearest-N, which covers more than never rotating. Every
    /// arrival missed is handed to `misses`, as `simulate --misses` writes them.
    @Test func suspendedPhonesOnTheMuseum() async throws {
        let topology = try PlannerFixture.example("museum")
        let simulation = try PhoneSimulation(
            topology: topology, configuration: .init(clients: 3, duration: 300, seed: 1, strategies: [.frontier, .nearest, .firstSet]))
        var misses: [PhoneSimulation.Miss] = []
        let report = await simulation.run { misses.append($0) }
        for result in report.strategies {
            let missed = misses.filter { $0.strategy == result.strategy }
            #expect(missed.count == result.tally.entries - result.tally.covered, "\(result.strategy)")
        }
        #expect(misses.allSatisfy { $0.asleepFor >= 0 && $0.awakeFor >= 0 && ($0.asleepFor == 0 || $0.awakeFor == 0) })
        #expect(misses.allSatisfy { $0.monitored <= 20 && (0..<3).contains($0.client) })
        #expect(misses.contains { $0.asleepFor > 0 } && misses.contains { $0.heard }, "first-set misses phones asleep, beacons in range")
        let coverage = Dictionary(uniqueKeysWithValues: report.strategies.map { ($0.strategy, $0.tally.coverage ?? 0) })
        #expect(report.strategies.allSatisfy { $0.tally.entries > 50 }, "\(report.strategies.map(\.tally.entries))")
        #expect(coverage[.frontier]! > coverage[.nearest]!, "\(coverage)")
        #expect(coverage[.nearest]! >= coverage[.firstSet]!, "\(coverage)")
        #expect(report.strategies.allSatisfy { $0.tally.wakes > 0 })
    }

    /// The phone the simulations run: asleep it neither reports nor applies; an enter of a
    /// monitored region wakes it for the wake duration; the retained message waits for it.
    @Test func aSuspendedPhoneRunsOnlyWhenARegionEventWakesIt() async throws {
        var phone = await SimulatedPhone(mode: .suspended, slots: 20, appRegions: 2, wakeDuration: 10)
        let uuid = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
        let r1 = RegionRef(id: "r1", uuid: uuid, major: 1, minor: 1)
        let beacon = try #require(BeaconIdentity(uuid: uuid, major: 1, minor: 1))
        // Launched: awake, reports, budget 18 of 20 (two app regions).
        let first = try #require(await phone.report(at: 0, ranged: []))
        #expect(first.budget == 18)
        phone.deliver(RegionsMessage(version: 1, budget: 18, regions: [r1], add: [r1], remove: [], position: nil, reason: "initial"), at: 1)
        #expect(await phone.applyDue(at: 0.5) == nil)  // not there yet
        #expect(await phone.applyDue(at: 1)?.completed == true)
        #expect(phone.held == ["r1"])
        // Asleep after 10 s: no report, a message waits.
        await phone.detect([], at: 20)
        #expect(await phone.report(at: 20, ranged: []) == nil)
        phone.deliver(RegionsMessage(version: 2, budget: 18, regions: [], add: [], remove: ["r1"], position: nil, reason: "moved"), at: 21)
        #expect(await phone.applyDue(at: 22) == nil)
        #expect(phone.wakes == 0)
        // r1's beacon comes into range: an enter wakes the app, which reports it and applies v2.
        let events = await phone.detect([beacon], at: 30)
        #expect(events == [.enter(identifier: "beaconfleet:r1")])
        #expect(phone.wakes == 1 && phone.isAwake(at: 39.9) && !phone.isAwake(at: 40))
        #expect(phone.awakeSince == 30, "its connection is made from the wake on")
        let woken = try #require(await phone.report(at: 30, ranged: []))
        #expect(woken.events.map(\.region) == ["r1"] && woken.version == 1 && woken.monitored == ["r1"])
        #expect(await phone.applyDue(at: 30)?.version == 2)
        #expect(phone.held.isEmpty && phone.stopped == 1)
    }

    /// The answer to a report is applied when it arrives, if the app still runs then: one that
    /// comes a round trip after the last report of a wake is not lost (RegionSync waits for it),
    /// one that comes after the wake waits for the next.
    @Test(arguments: [(0.2, 0.0, true), (0.2, 0.5, false), (1.0, 0.0, false)])
    func anAnswerIsAppliedOnArrivalWhileTheAppRuns(roundTrip: Double, connect: Double, applied: Bool) async throws {
        let topology = try PlannerFixture.example("museum")
        var phone = await SimulatedPhone(mode: .suspended, slots: 20, appRegions: 2, wakeDuration: 10)
        _ = try #require(await phone.report(at: 9.5, ranged: []))
        let region = topology.regions[0]
        let ref = RegionRef(id: region.id, uuid: region.identity.uuidString, major: region.identity.major, minor: region.identity.minor)
        let message = RegionsMessage(version: 1, budget: 18, regions: [ref], add: [ref], remove: [], position: nil, reason: "initial")
        // The launch's wake ends at 10 s; the last report went at 9.5 s.
        let arrives = 9.5 + roundTrip + connect
        phone.deliver(message, at: arrives)
        #expect((await phone.applyDue(at: arrives) != nil) == applied)
        #expect(phone.held == (applied ? [region.id] : []))
    }

    @Test func aNegativeRoundTripIsRefused() throws {
        let topology = try PlannerFixture.example("museum")
        #expect(throws: SimulationError.self) {
            try PhoneSimulation(topology: topology, configuration: .init(clients: 1, latency: -1))
        }
    }

    /// The per-phone table prints a wake window as it was set: whole seconds as before, a
    /// fractional bound (IOS.md's window starts at 0) with its tenths; a wake of 0 is refused.
    @Test func aPhonesWakeWindowIsPrintedAsSet() throws {
        #expect(PhoneFamily.ios.draw(seed: 1, client: 0).summary.contains("wake 5–30 s"))
        var family = PhoneFamily.ios
        try family.setting("wake=0.5...30")
        #expect(family.draw(seed: 1, client: 0).summary.contains("wake 0.5–30 s"))
        #expect(throws: SimulationError.self) { try family.setting("wake=0...30") }
    }

    /// IOS.md: some enters and exits are never delivered. A lost one neither wakes the app nor
    /// reaches a report then; at its next wake the app asks iOS the state of every region it holds
    /// (as `RegionSyncSession` does), and the enter it missed is in that wake's report.
    /// `--phones lost=SHARE` sets the share.
    @Test func anEventIOSLosesDoesNotWakeTheAppAndTheNextWakeReportsIt() async throws {
        let condition = PhoneCondition(wakeWindow: 10...10, budget: 18, lostEvents: 0.5)
        var phone = await SimulatedPhone(mode: .suspended, slots: 20, condition: condition, seed: 1, client: 0)
        let uuid = "F7826DA6-4FA2-4E98-8024-BC5B71E0893E"
        let refs = (1...12).map { RegionRef(id: "r\($0)", uuid: uuid, major: 1, minor: UInt16($0)) }
        let beacons = try (1...12).map { try #require(BeaconIdentity(uuid: uuid, major: 1, minor: UInt16($0))) }
        _ = try #require(await phone.report(at: 0, ranged: []))
        phone.deliver(RegionsMessage(version: 1, budget: 18, regions: refs, add: refs, remove: [], position: nil, reason: "initial"), at: 0)
        #expect(await phone.applyDue(at: 0)?.completed == true)
        await phone.detect([], at: 15)  // the states the new regions start in; asleep from 10 s
        // One more beacon in range every 20 s (the earlier ones stay, so no exit fires): each
        // enter either wakes the app, whose report has it and every enter lost since, or is lost.
        var lost: [String] = []
        var missed: [String] = []
        var recovered = 0
        for index in refs.indices {
            let time = 20 + 20 * Double(index)
            let events = await phone.detect(Array(beacons[...index]), at: time)
            if events.isEmpty {
                lost.append(refs[index].id)
                missed.append(refs[index].id)
                #expect(!phone.isAwake(at: time))
            } else {
                #expect(events == [.enter(identifier: "beaconfleet:\(refs[index].id)")])
                let report = try #require(await phone.report(at: time, ranged: []))
                #expect(Set(report.events.map(\.region)) == Set(missed + [refs[index].id]))
                #expect(report.events.allSatisfy { $0.type == .enter })
                recovered += missed.count
                missed = []
            }
            #expect(await phone.monitor.state(of: "beaconfleet:\(refs[index].id)") == .inside, "iOS's state follows the radio")
        }
        #expect(recovered > 0 && phone.wakes == refs.count - lost.count, "lost \(lost), recovered \(recovered)")

        var family = PhoneFamily.ios
        #expect(family.draw(seed: 1, client: 0).lostEvents == 0, "the ios family loses none unless told")
        try family.setting("lost=0.05")
        #expect(family.draw(seed: 1, client: 0).summary.hasSuffix("5 % lost"))
        #expect(throws: SimulationError.self) { try family.setting("lost=1") }
        #expect(throws: SimulationError.self) { try family.setting("lost=-0.1...0.2") }
    }
}
