import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

/// `beaconfleet credentials` against a real mosquitto with the dynamic security plugin: two phones
/// provisioned by the binary, each able to write its own report and read its own regions, neither
/// the other's.
@Suite("Per-phone credentials (mosquitto dynamic security)", .serialized, .requiresBeaconFleetBinary)
struct CredentialsTests {
    let topics = try! Topics()

    /// A connected client logging in as `user`.
    func connect(_ broker: MosquittoBroker, _ user: String, _ password: String) async throws -> MQTTClient {
        let client = try MQTTClient(
            configuration: MQTTConfiguration(
                url: broker.url(username: user, password: password), clientID: "test-\(user)-\(UUID().uuidString.prefix(8))"))
        try client.connect()
        try await withTimeout(.seconds(10), "\(user) connecting") { try await client.connected() }
        return client
    }

    @Test(
        "two provisioned phones: each writes its own report and reads its own regions, and cannot read or write the other's",
        .requiresDynamicSecurity)
    func twoPhones() async throws {
        let directory = try makeTemporaryDirectory("dynsec")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("dynamic-security.json").path
        try await DynamicSecurity.initialize(file, adminPassword: "admin-secret")
        let configuration = MosquittoBroker.Configuration(
            allowAnonymous: false, extraConfiguration: DynamicSecurity.brokerConfiguration(file))
        try await withMosquittoBroker(configuration) { broker in
            let admin = "mqtt://admin:admin-secret@127.0.0.1:\(broker.port)"  // BrokerURL.description masks the password
            let initialized = try await BeaconFleetCommand.run(
                ["credentials", "init", "--broker", admin, "--coordinator-password", "coord-secret"])
            #expect(
                initialized.status == 0,
                "\(initialized.output)\(initialized.errors)\nbroker log:\n\(broker.log)\nfile: \((try? String(contentsOfFile: file, encoding: .utf8)) ?? "none")"
            )
            var passwords: [String: String] = [:]
            for phone in ["phone-a", "phone-b"] {
                let added = try await BeaconFleetCommand.run(["credentials", "add", phone, "--broker", admin])
                #expect(added.status == 0, "\(added.output)\(added.errors)")
                let words = added.output.split(whereSeparator: \.isWhitespace).map(String.init)
                #expect(words.count == 2 && words[0] == phone, "prints 'PHONE PASSWORD': \(added.output)")
                passwords[phone] = words.last
            }
            let a = try Identifier("phone-a")
            let b = try Identifier("phone-b")

            // The coordinator's account: reads every report, writes every phone's regions.
            let coordinator = try await connect(broker, "coordinator", "coord-secret")
            let reports = coordinator.messages
            try await coordinator.subscribe(topics.allClientReports)
            for phone in [a, b] {
                try await coordinator.publish(
                    topic: topics.clientRegions(phone), string: #"{"v":1,"version":1,"for":"\#(phone)"}"#, retain: true)
            }

            // Phone A reads: the other's regions are refused (or never delivered); its own arrive.
            let phoneA = try await connect(broker, "phone-a", try #require(passwords["phone-a"]))
            let received = phoneA.messages
            var refused = false
            do {
                try await phoneA.subscribe(topics.clientRegions(b))
            } catch {
                refused = true
            }
            try await phoneA.subscribe(topics.clientRegions(a))
            // Retained messages arrive in subscription order: B's (if it were allowed) before A's own.
            let firstTopic = try await withTimeout(.seconds(10), "phone A's own regions") {
                for await message in received { return message.topic }
                return ""
            }
            #expect(firstTopic == topics.clientRegions(a), "phone A read \(firstTopic)")
            #expect(refused || firstTopic != topics.clientRegions(b))

            // Phone A writes: the other's report is dropped by the broker; its own reaches the coordinator.
            do {
                try await phoneA.publish(topic: topics.clientReport(b), string: #"{"v":1,"from":"a"}"#)
            } catch {
                // MQTT 5: the broker may answer "not authorized"; either way nothing must be delivered.
            }
            try await phoneA.publish(topic: topics.clientReport(a), string: #"{"v":1,"from":"a"}"#)
            // Phone B can do its own too.
            let phoneB = try await connect(broker, "phone-b", try #require(passwords["phone-b"]))
            try await phoneB.publish(topic: topics.clientReport(b), string: #"{"v":1,"from":"b"}"#)
            let delivered = try await withTimeout(.seconds(10), "the reports at the coordinator") {
                var seen: [String] = []
                for await message in reports {
                    seen.append("\(message.topic) \(message.payloadString)")
                    if message.payloadString.contains(#""from":"b""#) { break }
                }
                return seen
            }
            #expect(
                delivered == [#"\#(topics.clientReport(a)) {"v":1,"from":"a"}"#, #"\#(topics.clientReport(b)) {"v":1,"from":"b"}"#],
                "A's write to B's report must not arrive: \(delivered)")

            // A removed phone can no longer log in.
            let removed = try await BeaconFleetCommand.run(["credentials", "remove", "phone-b", "--broker", admin])
            #expect(removed.status == 0, "\(removed.output)\(removed.errors)")
            let again = try MQTTClient(
                configuration: MQTTConfiguration(url: broker.url(username: "phone-b", password: try #require(passwords["phone-b"]))))
            try again.connect()
            // `connected()` throws at once when the broker refuses the credentials (the bound is only for a broken run).
            let refusal = await #expect(throws: MQTTError.self) {
                try await withTimeout(.seconds(20), "a removed phone connecting") { try await again.connected() }
            }
            #expect(refusal?.isConfigurationProblem == true, "refused, not merely slow: \(String(describing: refusal))")
            for client in [coordinator, phoneA, phoneB, again] { await client.disconnect() }
        }
    }
}
