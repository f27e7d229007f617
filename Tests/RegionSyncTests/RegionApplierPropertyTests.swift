import BeaconKit
import RegionSync
import RegionSyncTesting
import Testing
import Topology
import WireProtocol

/// The applier's rules as properties over random message sequences: a coordinator that moves a
/// phone's set around a venue of 40 regions, loses messages, re-delivers old ones and changes
/// identities, against a fake iOS with random app regions, flavour and refusal.
@Suite("RegionApplier properties over random message sequences")
struct RegionApplierPropertyTests {
    static let seeds: [UInt64] = Array(1...40)

    @Test("Slots, unchanged regions, idempotence, held ⊆ wanted, the app's regions untouched, the 0.1 s gap", arguments: seeds)
    func properties(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        let flavour = FakeRegionMonitor<VirtualClock>.Options.Flavour.allCases[random.int(in: 0...1)]
        let overLimit = FakeRegionMonitor<VirtualClock>.Options.OverLimit.allCases[random.int(in: 0...1)]
        let world = World(.init(flavour: flavour, overLimit: overLimit, restartGapCoversEveryRegion: true))
        let appRegions = (0..<random.int(in: 0...5)).map { "app-\($0)" }
        for id in appRegions { await world.fake.addAppRegion(identifier: id) }
        let budget = 20 - appRegions.count

        var minors = (0..<40).map { UInt16($0) }
        var published: [RegionsMessage] = []
        var previous: [RegionRef] = []
        var lastApplied: RegionsMessage?
        for step in 0..<30 {
            // The coordinator's next set: up to 22 regions in a random priority order, sometimes a changed identity.
            if random.int(in: 0...9) == 0 { minors[random.int(in: 0...39)] &+= 100 }
            var ids = Array(0..<40)
            ids.shuffle(using: &random)
            let regions = ids.prefix(random.int(in: 0...22)).map { ref($0, minor: minors[$0]) }
            let next = message(UInt64(published.count + 1), regions, after: previous)
            published.append(next)
            previous = regions

            // What reaches the phone: usually the new message, sometimes nothing (lost), sometimes an old one again.
            let delivered: RegionsMessage
            switch random.int(in: 0...9) {
            case 0: continue
            case 1: delivered = published[random.int(in: 0...(published.count - 1))]
            default: delivered = next
            }
            // Now and then iOS drops one of ours behind the applier's back.
            if random.int(in: 0...9) == 0, let victim = await world.ours().first {
                await world.fake.removeAppRegion(identifier: world.identifier(victim))
            }

            let callsBefore = await world.fake.calls.count
            let outcome = await world.applier.apply(delivered)
            let ours = await world.oursWithIdentity()
            let context = "seed \(seed) step \(step) version \(delivered.version) \(outcome.path)"

            #expect(ours.count <= budget, "more regions than BeaconFleet's slots: \(context)")
            #expect(await world.fake.refusals.isEmpty, "iOS refused a start: \(context)")
            #expect(await world.fake.unchangedReAdds.isEmpty, "an unchanged region was registered again: \(context)")
            #expect(
                await world.fake.monitoredRegions().prefix(appRegions.count).map(\.identifier) == appRegions,
                "the app's regions changed: \(context)")
            let calls = await world.fake.calls
            #expect(calls.allSatisfy { configuration.owns($0.identifier) }, "a call touched an identifier not ours: \(context)")

            if outcome.path == .ignored {
                #expect(await world.fake.calls.count == callsBefore, "an ignored message called iOS: \(context)")
                continue
            }
            lastApplied = delivered
            // Held ⊆ wanted, and exactly the plan's first `budget` regions with their identities.
            let wanted = delivered.regions.prefix(budget)
            #expect(Set(ours.keys).isSubset(of: Set(delivered.regions.map(\.id))), "held a region the message does not want: \(context)")
            #expect(
                ours == Dictionary(uniqueKeysWithValues: wanted.map { ($0.id, RegionIdentity($0)!) }), "did not converge: \(context)")
            #expect(outcome.leftOut == delivered.regions.dropFirst(budget).map(\.id), "left out: \(context)")

            // Applying the same message again calls nothing.
            let callsAfter = await world.fake.calls.count
            let again = await world.applier.apply(delivered)
            let callsAgain = await world.fake.calls.count
            #expect(again.path == .ignored && callsAgain == callsAfter, "a second apply called iOS: \(context)")
        }
        #expect(lastApplied != nil)
    }
}
