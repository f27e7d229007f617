@testable import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

@Suite("A phone report received twice")
struct RepeatedReportsTests {
    @Test(
        "the same timed bytes on the same topic are a repeat; other bytes, another phone's topic or a report without time are not; forgotten after two windows"
    )
    func fingerprints() {
        let reports = RepeatedReports(window: .seconds(30))
        let start = ContinuousClock.now
        let a = Array(#"{"events":[],"time":"2026-11-25T04:00:00.000Z","v":1}"#.utf8)
        let b = Array(#"{"events":[],"time":"2026-11-25T04:00:01.000Z","v":1}"#.utf8)
        #expect(!reports.isRepeat(topic: "p/v1/clients/one/report", payload: a, now: start))
        #expect(reports.isRepeat(topic: "p/v1/clients/one/report", payload: a, now: start + .seconds(1)))
        #expect(!reports.isRepeat(topic: "p/v1/clients/one/report", payload: b, now: start + .seconds(1)))
        #expect(!reports.isRepeat(topic: "p/v1/clients/two/report", payload: a, now: start + .seconds(1)))
        // A report without `time` may repeat its bytes as a new report: never a repeat.
        let untimed = Array(#"{"events":[{"region":"hall","type":"enter"}],"v":1}"#.utf8)
        #expect(!reports.isRepeat(topic: "p/v1/clients/one/report", payload: untimed, now: start + .seconds(2)))
        #expect(!reports.isRepeat(topic: "p/v1/clients/one/report", payload: untimed, now: start + .seconds(3)))
        // Kept across one rotation (at least a window), gone after two.
        #expect(reports.isRepeat(topic: "p/v1/clients/one/report", payload: a, now: start + .seconds(45)))
        #expect(!reports.isRepeat(topic: "p/v1/clients/one/report", payload: b, now: start + .seconds(100)))
        #expect(!reports.isRepeat(topic: "p/v1/clients/two/report", payload: a, now: start + .seconds(101)))
    }

    @Test(
        "through a real broker: a report sent at QoS 0 and again at QoS 1 is applied once and counted in /metrics; the next report is applied"
    )
    func throughBroker() async throws {
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker)
            let topics = try Topics()
            let topic = topics.clientReport(try Identifier("phone-twice"))
            let first = try WireCoding.encode(
                ClientReport(time: Date(timeIntervalSince1970: 1_795_000_000), events: [RegionEvent(type: .enter, region: "hall-entrance")])
            )
            let second = try WireCoding.encode(
                ClientReport(time: Date(timeIntervalSince1970: 1_795_000_001), events: [RegionEvent(type: .exit, region: "hall-entrance")]))
            let before = await coordinator.service.core.counters.reports
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { phone in
                try await phone.publish(topic: topic, payload: first, qos: .atMostOnce)
                try await phone.publish(topic: topic, payload: first, qos: .atLeastOnce)
                try await phone.publish(topic: topic, payload: second, qos: .atLeastOnce)
            }
            let core = coordinator.service.core
            let applied = try await withTimeout(.seconds(10), "both reports applied") {
                while await core.counters.reports < before + 2 { try await Task.sleep(for: .milliseconds(20)) }
                return await core.counters.reports
            }
            try await Task.sleep(for: .milliseconds(300))  // a third report, if the copy had gone through, would be in by now
            let metrics = coordinator.service.metrics.render()
            await coordinator.stop()
            #expect(applied - before == 2)
            #expect(await coordinator.service.core.counters.reports - before == 2)
            #expect(
                metrics.contains("beaconfleet_coordinator_repeated_reports_total 1"),
                "\(metrics.split(separator: "\n").filter { $0.contains("repeated") })")
        }
    }
}
