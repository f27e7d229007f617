import Coordinator
import Credentials
import Foundation
import MQTT
import MosquittoTesting
import RegionSyncMQTT
import TestSupport
import Testing
import WireProtocol

/// A venue's broker opened for phones the way docs/regionsync.md says: mosquitto with the dynamic
/// security plugin (per-phone accounts and roles exactly as `beaconfleet credentials` makes them,
/// `DynamicSecurityPlan`), a TLS listener with the venue's own CA, and WebSocket listeners, plain
/// and TLS, for networks that block 8883. The coordinator's account and the admin's use the plain
/// listener.
struct VenueBroker {
    static let adminPassword = "admin-secret"
    static let coordinatorPassword = "coordinator-secret"

    let broker: MosquittoBroker
    let certificates: TestCertificates
    let directory: URL
    /// The WebSocket listeners' ports: `ws://127.0.0.1:webSocketPort/mqtt`, `wss://localhost:secureWebSocketPort/mqtt`.
    let webSocketPort: Int
    let secureWebSocketPort: Int
    let topics = try! Topics()

    /// The venue CA's certificate, PEM, as an app ships it.
    var caCertificate: [UInt8] { Array(FileManager.default.contents(atPath: certificates.caFile) ?? Data()) }

    /// `mqtts://localhost:port` of the TLS listener.
    var tlsURL: String { "mqtts://localhost:\(broker.tlsPort!)" }

    static func start() async throws -> VenueBroker {
        // openssl runs synchronously: on a new thread of its own, not one of the cooperative pool (nor behind heavyWork's queue of simulations).
        let certificates = try await onOwnThread { try TestCertificates.make() }
        let directory = try makeTemporaryDirectory("venue-broker")
        let file = directory.appendingPathComponent("dynamic-security.json").path
        try await DynamicSecurity.initialize(file, adminPassword: adminPassword)
        let webSocketPort = try LoopbackPort.hold()
        let secureWebSocketPort = try LoopbackPort.hold()
        let broker = try await MosquittoBroker.start(
            MosquittoBroker.Configuration(
                allowAnonymous: false,
                tls: .init(certificateFile: certificates.serverCertificateFile, keyFile: certificates.serverKeyFile),
                extraConfiguration: DynamicSecurity.brokerConfiguration(file) + [
                    "listener \(webSocketPort) 127.0.0.1", "protocol websockets",
                    "listener \(secureWebSocketPort) 127.0.0.1", "protocol websockets",
                    "certfile \(certificates.serverCertificateFile)", "keyfile \(certificates.serverKeyFile)",
                ]))
        let venue = VenueBroker(
            broker: broker, certificates: certificates, directory: directory, webSocketPort: webSocketPort,
            secureWebSocketPort: secureWebSocketPort)
        let plan = DynamicSecurityPlan(topics: venue.topics)
        try await venue.control(
            plan.roles() + plan.account("coordinator", password: coordinatorPassword, role: DynamicSecurityPlan.coordinatorRole))
        return venue
    }

    /// Stops the broker and removes its files.
    func stop() async {
        await broker.stop()
        LoopbackPort.release(webSocketPort)
        LoopbackPort.release(secureWebSocketPort)
        certificates.remove()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates phone `id`'s role and account as `beaconfleet credentials add` does; returns its password.
    func addPhone(_ id: Identifier) async throws -> String {
        let password = DynamicSecurityPlan.randomPassword()
        try await control(DynamicSecurityPlan(topics: topics).addPhone(id, password: password))
        return password
    }

    /// The coordinator's connection settings (plain listener).
    var coordinator: MQTTConfiguration {
        MQTTConfiguration(
            url: broker.url(username: "coordinator", password: Self.coordinatorPassword),
            clientID: "coordinator-\(UUID().uuidString.prefix(8))")
    }

    /// Sends `commands` to the plugin as its admin and fails with any error it answers.
    func control(_ commands: [DynamicSecurityPlan.Command]) async throws {
        try await withSubscribedClient(
            MQTTConfiguration(url: broker.url(username: "admin", password: Self.adminPassword)), to: DynamicSecurityPlan.responseTopic
        ) { admin, responses in
            try await admin.publish(topic: DynamicSecurityPlan.requestTopic, payload: try DynamicSecurityPlan.request(commands))
            let answer = try await collect(1, from: responses, within: .seconds(10))[0]
            let errors = DynamicSecurityPlan.errors(inResponse: answer.payload)
            #expect(errors == [], "the plugin answered: \(answer.payloadString)")
        }
    }
}

/// Runs `body` with a fresh ``VenueBroker`` and stops it afterwards, also when `body` throws.
func withVenueBroker<Result>(_ body: (VenueBroker) async throws -> Result) async throws -> Result {
    try await withResource(try await VenueBroker.start(), stop: { await $0.stop() }, body)
}
