import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing

/// The mosquitto ACL the docs link to (`deploy/mosquitto.acl`), checked
/// against a real broker: a phone writes only its own report and reads only its own regions.
@Suite("The documented mosquitto ACL", .timeLimit(.minutes(1)))
struct BrokerACLTests {
    static let users = ["coordinator": "c-pass", "phone-1": "p1-pass", "phone-2": "p2-pass"]
    static let aclFile = SharedData.packageRoot.appendingPathComponent("deploy/mosquitto.acl").path

    @Test("a phone's report reaches the coordinator; its write to another phone's report does not")
    func phoneWritesOnlyItsOwnReport() async throws {
        try await withMosquittoBroker(.init(users: Self.users, aclFile: Self.aclFile)) { broker in
            try await withConnectedClient(
                MQTTConfiguration(url: broker.url(username: "coordinator", password: "c-pass"), clientID: "coordinator")
            ) { coordinator in
                let received = coordinator.messages
                _ = try await coordinator.subscribe("beaconfleet/v1/clients/+/report", qos: .atLeastOnce)
                try await withConnectedClient(
                    MQTTConfiguration(url: broker.url(username: "phone-1", password: "p1-pass"), clientID: "phone-1")
                ) { phone in
                    // The forbidden write first, then an allowed one: the broker keeps one
                    // connection's messages in order, so once the allowed one arrives, the
                    // forbidden one would have arrived before it.
                    try? phone.enqueue(topic: "beaconfleet/v1/clients/phone-2/report", payload: Array("forged".utf8), qos: .atLeastOnce)
                    try await phone.publish(topic: "beaconfleet/v1/clients/phone-1/report", payload: Array("own".utf8), qos: .atLeastOnce)
                    let first = try await collect(1, from: received, within: .seconds(10))
                    #expect(first.map(\.topic) == ["beaconfleet/v1/clients/phone-1/report"])
                    #expect(first.map { String(decoding: $0.payload, as: UTF8.self) } == ["own"])
                }
            }
        }
    }

    @Test("a phone subscribed to every client's regions receives only its own")
    func phoneReadsOnlyItsOwnRegions() async throws {
        try await withMosquittoBroker(.init(users: Self.users, aclFile: Self.aclFile)) { broker in
            try await withConnectedClient(MQTTConfiguration(url: broker.url(username: "phone-1", password: "p1-pass"), clientID: "phone-1"))
            { phone in
                let received = phone.messages
                _ = try await phone.subscribe("beaconfleet/v1/clients/+/regions", qos: .atLeastOnce)
                try await withConnectedClient(
                    MQTTConfiguration(url: broker.url(username: "coordinator", password: "c-pass"), clientID: "coordinator")
                ) { coordinator in
                    try await coordinator.publish(
                        topic: "beaconfleet/v1/clients/phone-2/regions", payload: Array("theirs".utf8), qos: .atLeastOnce)
                    try await coordinator.publish(
                        topic: "beaconfleet/v1/clients/phone-1/regions", payload: Array("mine".utf8), qos: .atLeastOnce)
                    let first = try await collect(1, from: received, within: .seconds(10))
                    #expect(first.map(\.topic) == ["beaconfleet/v1/clients/phone-1/regions"])
                    #expect(first.map { String(decoding: $0.payload, as: UTF8.self) } == ["mine"])
                }
            }
        }
    }
}
