import MQTT
@testable import Simulator
import TestSupport
import Testing

@Suite("The simulated phones' connections through a real mosquitto", .timeLimit(.minutes(1)))
struct PhoneConnectionsBrokerTests {
    /// Three reports of one wake of `phone-1` through `PhoneConnections`: what the subscriber
    /// received (payload and QoS), and the client ids the broker saw connect.
    func wake(reportCopy: Bool, expecting count: Int) async throws -> (messages: [(payload: [UInt8], qos: QoS)], clients: [String]) {
        try await withBrokerAndClient { broker, subscriber in
            let received = subscriber.messages
            try await subscriber.subscribe("t/clients/+/report", qos: .atLeastOnce)
            // A busy CI machine can take longer than a phone's 2 s to connect; this test checks
            // which connection carries what, not that timeout.
            let phones = PhoneConnections(
                base: MQTTConfiguration(url: broker.url, clientID: "sim"), reportCopy: reportCopy, copyConnectionWait: .seconds(15))
            for report in 0..<3 {
                await phones.send([UInt8(report)], topic: "t/clients/phone-1/report", phone: "phone-1", index: 0, version: nil)
            }
            let messages = try await collect(count, from: received, within: .seconds(20)).map { ($0.payload, $0.qos) }
            await phones.closeAll()
            #expect(await phones.outstanding == 0)
            // mosquitto logs "New client connected from 127.0.0.1:PORT as ID (…)".
            let clients = broker.log.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: " as sim-") else { return nil }
                return line[range.upperBound...].split(separator: " ").first.map { "sim-" + $0 }
            }
            return (messages, clients)
        }
    }

    @Test("With report copies every report arrives twice, at QoS 1 and as a QoS 0 copy from the wake's second connection")
    func copies() async throws {
        let (messages, clients) = try await wake(reportCopy: true, expecting: 6)
        #expect(messages.filter { $0.qos == .atLeastOnce }.map(\.payload) == [[0], [1], [2]])
        #expect(messages.filter { $0.qos == .atMostOnce }.map(\.payload) == [[0], [1], [2]])
        #expect(Set(clients) == ["sim-phone-1-1", "sim-phone-1-1c"], "\(clients)")
    }

    @Test("Without them, each report once at QoS 1, in the order the phone made them, on one connection")
    func noCopies() async throws {
        let (messages, clients) = try await wake(reportCopy: false, expecting: 3)
        #expect(messages.map(\.payload) == [[0], [1], [2]])
        #expect(messages.allSatisfy { $0.qos == .atLeastOnce })
        #expect(clients == ["sim-phone-1-1"], "\(clients)")
    }
}
