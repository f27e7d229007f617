import Coordinator
import Foundation
import Testing
import WireProtocol

/// A phone's enter and exit events read as iOS means them: an enter is "this beacon is detectable
/// from here" (within its detection range, 10 m in the test corridor), an exit "not detected for
/// about 30 s". Neither puts the phone at the beacon; ranged beacons stay the main evidence.
@Suite("Coordinator: a phone's region events as evidence of range")
struct PhoneEvidenceTests {
    let topics = TestVenue.topics
    func report(_ id: String) -> String { topics.clientReport(try! Identifier(id)) }

    /// What the phone ranges at `x` on the corridor: the beacons of r0…r29 (every 5 m) within 12 m.
    func ranged(at x: Double) -> [RangedBeacon] {
        (0..<30).compactMap { i -> RangedBeacon? in
            let distance = abs(Double(i * 5) - x)
            guard distance <= 12 else { return nil }
            return RangedBeacon(
                uuid: TestVenue.regionUUID, major: 1, minor: UInt16(i), rssi: Int(TestVenue.rssi(distance: distance).rounded()))
        }
    }

    func engine() throws -> CoordinatorEngine {
        CoordinatorEngine(venue: try TestVenue.make(budget: 10), configuration: .init(budget: 10))
    }

    @Test("an enter beside ranged beacons leaves the phone where the ranging puts it, within range of the region, not at its beacon")
    func enterWithRanging() throws {
        let engine = try engine()
        let before = try #require(try engine.report("p", ClientReport(ranged: ranged(at: 20)), at: 0)?.position)
        #expect(abs(before.x - 20) < 3, "ranging alone: x \(before.x)")
        // r6's beacon (x = 30) comes into range as the phone walks on to x = 22.
        let after = try #require(
            try engine.report("p", ClientReport(ranged: ranged(at: 22), events: [RegionEvent(type: .enter, region: "r6")]), at: 1))
        let position = try #require(after.position)
        #expect(abs(position.x - 22) < 3, "where the ranging says, not at r6's beacon (x 30): x \(position.x)")
        #expect(after.inside == ["r6"] || !after.regions.contains("r6"), "r6 inside while monitored")
    }

    @Test("an enter alone puts the phone within the region's detection range, as uncertain as that range")
    func enterAlone() throws {
        let engine = try engine()
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r10")]), at: 0)
        let message = try #require(engine.step(at: 0).regionsMessages.first?.1)
        let position = try #require(message.position)
        let confidence = try #require(position.confidence)
        #expect(abs(position.x - 50) <= 10 && abs(position.y) <= 10, "within r10's detection range: \(position)")
        #expect(confidence > 2, "not the region's 2 m radius: the beacon is detectable from 10 m: \(confidence)")
    }

    @Test("a second enter narrows the estimate to where both beacons are detectable")
    func twoEnters() throws {
        let engine = try engine()
        let both = ClientReport(events: [RegionEvent(type: .enter, region: "r10"), RegionEvent(type: .enter, region: "r12")])
        let position = try #require(try engine.report("p", both, at: 0)?.position)
        // r10 at x = 50 and r12 at x = 60, both detectable within 10 m: between them.
        #expect(position.x > 52 && position.x < 58, "x \(position.x)")
    }

    @Test("an exit pushes a recent estimate out of the region's detection range; alone it places nothing")
    func exits() throws {
        let engine = try engine()
        let before = try #require(try engine.report("p", ClientReport(ranged: ranged(at: 54)), at: 0)?.position)
        // Two seconds later iOS says r12's beacon (x = 60) has not been detected for 30 s.
        let after = try #require(try engine.report("p", ClientReport(events: [RegionEvent(type: .exit, region: "r12")]), at: 2)?.position)
        #expect(before.x > 52, "ranging: x \(before.x)")
        #expect(after.x <= 51, "beyond 10 m of x 60, on the side it was: x \(after.x), before \(before.x)")
        // A phone the coordinator has never located: an exit alone gives it no position.
        #expect(try engine.report("q", ClientReport(events: [RegionEvent(type: .exit, region: "r12")]), at: 3)?.position == nil)
    }
}
