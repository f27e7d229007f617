import MQTT
import MosquittoTesting
import TestSupport
import Testing

@Suite("Publish and subscribe through a real mosquitto", .timeLimit(.minutes(1)))
struct RoundTripTests {
    @Test("QoS 0, 1 and 2 round trips deliver topic, payload, QoS and user properties", arguments: QoS.allCases)
    func roundTrip(qos: QoS) async throws {
        try await withBrokerAndClient { broker, subscriber in
            let messages = subscriber.messages
            let granted = try await subscriber.subscribe("test/+/data", qos: qos)
            #expect(granted == qos)
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { publisher in
                for index in 0..<5 {
                    try await publisher.publish(
                        topic: "test/\(index)/data", payload: [UInt8(index), 0, 255], qos: qos,
                        userProperties: [MQTTUserProperty("index", "\(index)")])
                }
                await publisher.drain()
                #expect(publisher.outstandingMessageCount == 0)
            }
            let received = try await collect(5, from: messages)
            #expect(received.map(\.topic) == (0..<5).map { "test/\($0)/data" })
            #expect(received.map(\.payload) == (0..<5).map { [UInt8($0), 0, 255] })
            #expect(received.allSatisfy { $0.qos == qos && !$0.retain })
            #expect(received.map(\.userProperties) == (0..<5).map { [MQTTUserProperty("index", "\($0)")] })
        }
    }
}
