import Foundation
import MQTT
import Testing

@testable import Coordinator

/// Reports kept while nobody served their partition, for the member that gains it.
@Suite struct HeldReportsTests {
    func report(_ client: String, _ n: Int) -> InboundMessage {
        InboundMessage(message: MQTTMessage(topic: "beaconfleet/v1/clients/\(client)/report", payload: Array("\(n)".utf8)))
    }

    func payloads(_ taken: [InboundMessage]) -> [String] { taken.map(\.message.payloadString).sorted() }

    @Test("a gained partition takes its clients' unanswered reports, in order; answered, older or other partitions' stay out")
    func takesUnanswered() {
        let t0 = Date()
        var held = HeldReports()
        held.hold(report("a", 1), client: "a", partition: 0, now: t0)
        held.hold(report("a", 2), client: "a", partition: 0, now: t0.addingTimeInterval(1))
        held.hold(report("b", 3), client: "b", partition: 0, now: t0.addingTimeInterval(1))
        held.hold(report("c", 4), client: "c", partition: 1, now: t0.addingTimeInterval(1))
        held.hold(report("d", 5), client: "d", partition: 0, now: t0.addingTimeInterval(-30))
        // Another member answered b after its report: b's report is not taken.
        let answered: [String: Date] = ["b": t0.addingTimeInterval(2), "a": t0.addingTimeInterval(0.5)]
        let taken = held.take(partitions: [0], now: t0.addingTimeInterval(3)) { answered[$0] }
        #expect(taken.map(\.message.payloadString) == ["2"], "a's report after the answer only; d's too old")
        // Taken once: partition 0's are gone, partition 1's stay for whoever gains it.
        #expect(held.take(partitions: [0], now: t0.addingTimeInterval(3)) { _ in nil }.isEmpty)
        #expect(payloads(held.take(partitions: [1], now: t0.addingTimeInterval(3)) { _ in nil }) == ["4"])
    }

    @Test("at most perClient reports per client, the newest")
    func bounded() {
        let t0 = Date()
        var held = HeldReports()
        held.perClient = 2
        for n in 1...5 { held.hold(report("a", n), client: "a", partition: 0, now: t0) }
        #expect(payloads(held.take(partitions: [0], now: t0) { _ in nil }) == ["4", "5"])
    }
}
