import Foundation
import MQTT
import Testing
import WireProtocol

@testable import Coordinator

/// Reports kept while nobody served their partition, for the member that gains it.
@Suite struct HeldReportsTests {
    let decoder = InboundDecoder(topics: try! Topics())

    func report(_ client: String, _ n: Int) -> InboundMessage {
        InboundMessage(topic: "beaconfleet/v1/clients/\(client)/report", payload: Array("\(n)".utf8), decoder: decoder)
    }

    func payloads(_ taken: [InboundMessage]) -> [String] {
        taken.map { $0.bytes.map { $0.withUnsafeBytes { String(decoding: $0, as: UTF8.self) } } ?? "" }.sorted()
    }

    /// What a member that has just gained `partitions` (and serves them now) takes.
    func gain(_ held: inout HeldReports, _ partitions: Set<Int>, now: Date, answered: [String: (at: Date, partition: Int)] = [:])
        -> [InboundMessage]
    {
        held.due(partitions: partitions, now: now)
        return held.take(now: now, answered: { answered[$0] }, owned: partitions.contains) { partitions.contains($1) }
    }

    @Test("a gained partition takes its clients' unanswered reports, in order; answered, older or other partitions' stay out")
    func takesUnanswered() {
        let t0 = Date()
        var held = HeldReports()
        held.hold(report("a", 1), client: "a", partition: 0, owned: false, now: t0)
        held.hold(report("a", 2), client: "a", partition: 0, owned: false, now: t0.addingTimeInterval(1))
        held.hold(report("b", 3), client: "b", partition: 0, owned: false, now: t0.addingTimeInterval(1))
        held.hold(report("c", 4), client: "c", partition: 1, owned: false, now: t0.addingTimeInterval(1))
        held.hold(report("d", 5), client: "d", partition: 0, owned: false, now: t0.addingTimeInterval(-30))
        // Nothing is due before a gain: the reports of partitions other members serve wait.
        #expect(held.take(now: t0, answered: { _ in nil }, owned: { _ in false }) { _, _ in true }.isEmpty)
        // Another member answered b after its report: b's report is not taken.
        let answered: [String: (at: Date, partition: Int)] = ["b": (t0.addingTimeInterval(2), 0), "a": (t0.addingTimeInterval(0.5), 0)]
        let taken = gain(&held, [0], now: t0.addingTimeInterval(3), answered: answered)
        #expect(payloads(taken) == ["2"], "a's report after the answer only; d's too old")
        // Taken once: partition 0's are gone, partition 1's stay for whoever gains it.
        #expect(gain(&held, [0], now: t0.addingTimeInterval(3)).isEmpty)
        #expect(payloads(gain(&held, [1], now: t0.addingTimeInterval(3))) == ["4"])
    }

    @Test("a phone crossing into this member's partition: held until served, and a set placing it in the other partition is no answer")
    func crossing() {
        let t0 = Date()
        var held = HeldReports()
        held.hold(report("p", 1), client: "p", partition: 1, owned: true, now: t0)
        // The other member's answer to the phone's previous report (partition 0) arrives after it.
        let answered: [String: (at: Date, partition: Int)] = ["p": (t0.addingTimeInterval(0.2), 0)]
        var ready = false
        #expect(held.take(now: t0.addingTimeInterval(0.5), answered: { answered[$0] }, owned: { $0 == 1 }) { _, _ in ready }.isEmpty)
        #expect(held.due == ["p"], "still due while not ready")
        ready = true
        let taken = held.take(now: t0.addingTimeInterval(1.1), answered: { answered[$0] }, owned: { $0 == 1 }) { _, _ in ready }
        #expect(payloads(taken) == ["1"])
        #expect(held.due.isEmpty && held.byClient.isEmpty)
    }

    @Test(
        "after a membership change, unanswered reports of partitions this member does not own are relayed once, after relayAfter; none without a change"
    )
    func relays() {
        let t0 = Date()
        var held = HeldReports()
        held.hold(report("a", 1), client: "a", partition: 0, owned: false, now: t0)
        held.hold(report("b", 2), client: "b", partition: 0, owned: false, now: t0)
        held.hold(report("c", 3), client: "c", partition: 1, owned: false, now: t0)
        held.hold(report("d", 4), client: "d", partition: 0, owned: false, now: t0.addingTimeInterval(2))
        let answered: [String: (at: Date, partition: Int)] = ["b": (t0.addingTimeInterval(1), 0)]
        let ownsOne = { (partition: Int) in partition == 1 }
        // No membership change: nothing goes round, however old.
        #expect(held.relays(now: t0.addingTimeInterval(5), answered: { answered[$0] }, owned: ownsOne).isEmpty)
        held.noteChange(at: t0.addingTimeInterval(1))
        // Before relayAfter (3 s) nothing; then a's only: b was answered, c is this member's own partition, d is too young.
        #expect(held.relays(now: t0.addingTimeInterval(2.5), answered: { answered[$0] }, owned: ownsOne).isEmpty)
        #expect(payloads(held.relays(now: t0.addingTimeInterval(3.5), answered: { answered[$0] }, owned: ownsOne)) == ["1"])
        // Once each: d when it is old enough, a not again.
        #expect(payloads(held.relays(now: t0.addingTimeInterval(5.5), answered: { answered[$0] }, owned: ownsOne)) == ["4"])
        #expect(held.relays(now: t0.addingTimeInterval(6), answered: { answered[$0] }, owned: ownsOne).isEmpty)
        // A report that arrived well after the last change is not relayed.
        held.hold(report("e", 5), client: "e", partition: 0, owned: false, now: t0.addingTimeInterval(8))
        #expect(held.relays(now: t0.addingTimeInterval(12), answered: { _ in nil }, owned: ownsOne).isEmpty)
    }

    @Test(
        "another member's status relays at once the unanswered reports of the partitions it names, received up to relayAfter before it"
    )
    func relaysOnStatus() {
        let t0 = Date()
        var held = HeldReports()
        held.hold(report("a", 1), client: "a", partition: 0, owned: false, now: t0.addingTimeInterval(-5))  // before its absence
        held.hold(report("b", 2), client: "b", partition: 0, owned: false, now: t0.addingTimeInterval(-1))  // missed
        held.hold(report("c", 3), client: "c", partition: 0, owned: false, now: t0.addingTimeInterval(-0.5))  // answered
        held.hold(report("d", 4), client: "d", partition: 1, owned: false, now: t0.addingTimeInterval(-1))  // another partition
        held.hold(report("e", 5), client: "e", partition: 0, owned: false, now: t0.addingTimeInterval(0.5))  // after the status
        let answered: [String: (at: Date, partition: Int)] = ["c": (t0.addingTimeInterval(-0.2), 0)]
        // A status naming nothing (a member owning no partition) relays nothing.
        held.noteStatus(partitions: [], at: t0)
        #expect(held.relays(now: t0.addingTimeInterval(0.6), answered: { answered[$0] }, owned: { _ in false }).isEmpty)
        held.noteStatus(partitions: [0], at: t0)
        #expect(payloads(held.relays(now: t0.addingTimeInterval(0.6), answered: { answered[$0] }, owned: { _ in false })) == ["2"])
        #expect(held.relays(now: t0.addingTimeInterval(1), answered: { answered[$0] }, owned: { _ in false }).isEmpty, "once each")
        // The member that named partition 0 is this one: nothing of its own partitions is relayed.
        var own = HeldReports()
        own.hold(report("b", 2), client: "b", partition: 0, owned: true, now: t0.addingTimeInterval(-1))
        own.noteStatus(partitions: [0], at: t0)
        #expect(own.relays(now: t0.addingTimeInterval(0.6), answered: { _ in nil }, owned: { $0 == 0 }).isEmpty)
    }

    @Test("at most perClient reports per client, the newest")
    func bounded() {
        let t0 = Date()
        var held = HeldReports()
        held.perClient = 2
        for n in 1...5 { held.hold(report("a", n), client: "a", partition: 0, owned: false, now: t0) }
        #expect(payloads(gain(&held, [0], now: t0)) == ["4", "5"])
    }
}
