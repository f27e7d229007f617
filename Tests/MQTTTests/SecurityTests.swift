import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing

@Suite("Passwords and TLS", .timeLimit(.minutes(1)))
struct SecurityTests {
    @Test(
        "the right password connects; a wrong one is refused with an error naming the broker and user",
        arguments: [MQTTProtocolVersion.v5, .v311])
    func passwords(version: MQTTProtocolVersion) async throws {
        try await withMosquittoBroker(.init(users: ["agent": "s3cret"])) { broker in
            var good = MQTTConfiguration(url: broker.url(username: "agent", password: "s3cret"))
            good.protocolVersion = version
            try await withConnectedClient(good) { client in
                try await client.publish(topic: "x", payload: [1])
            }

            var bad = MQTTConfiguration(url: broker.url(username: "agent", password: "wrong"))
            bad.protocolVersion = version
            let client = try MQTTClient(configuration: bad)
            try client.connect()
            let error = await #expect(throws: MQTTError.self) {
                try await withTimeout(.seconds(10), "the refusal") { try await client.connected() }
            }
            await client.disconnect()
            let refusal = try #require(error)
            switch refusal {
            case .badCredentials(let named, let user), .notAuthorized(let named, let user):
                #expect(named == bad.url.description && user == "agent")
            default:
                Issue.record("expected a credentials refusal, got \(refusal)")
            }
            #expect(refusal.description.contains("agent") && !refusal.description.contains("wrong"))
            #expect(refusal.isConfigurationProblem)
        }
    }

    @Test("TLS with a CA made at test time: round trip, client certificates, and a foreign CA refused")
    func tls() async throws {
        let certificates = try TestCertificates.make()
        let foreign = try TestCertificates.make(commonName: "Someone Else's CA")
        defer {
            certificates.remove()
            foreign.remove()
        }
        let listener = MosquittoBroker.TLSListener(
            certificateFile: certificates.serverCertificateFile, keyFile: certificates.serverKeyFile,
            caFile: certificates.caFile, requireClientCertificate: true)
        try await withMosquittoBroker(.init(tls: listener)) { broker in
            let url = try #require(broker.tlsURL)
            var configuration = MQTTConfiguration(url: url)
            configuration.tls = MQTTTLSFiles(
                caFile: certificates.caFile, certificateFile: certificates.clientCertificateFile, keyFile: certificates.clientKeyFile)
            try await withSubscribedClient(configuration, to: "secure/#") { client, messages in
                try await client.publish(topic: "secure/1", payload: [7], qos: .exactlyOnce)
                #expect(try await collect(1, from: messages).map(\.payload) == [[7]])
            }

            var wrongCA = configuration
            wrongCA.tls.caFile = foreign.caFile
            let client = try MQTTClient(configuration: wrongCA)
            try client.connect()
            let error = await #expect(throws: MQTTError.self) {
                try await withTimeout(.seconds(10), "the TLS failure") { try await client.connected() }
            }
            await client.disconnect()
            guard case .tlsHandshakeFailed(let named, let detail) = error else {
                Issue.record("expected a TLS handshake failure, got \(String(describing: error))")
                return
            }
            #expect(named == url.description)
            #expect(detail.contains(foreign.caFile))
        }
    }

    @Test("a missing or unreadable TLS file is named before connecting")
    func missingTLSFile() throws {
        var configuration = MQTTConfiguration(url: BrokerURL(host: "localhost", usesTLS: true))
        configuration.tls = MQTTTLSFiles(caFile: "/nonexistent/ca.pem")
        #expect(throws: MQTTError.tlsFile(role: "CA file", path: "/nonexistent/ca.pem", reason: "no such file")) {
            try MQTTClient(configuration: configuration)
        }
        configuration.tls = MQTTTLSFiles(caFile: "/tmp")
        #expect(throws: MQTTError.tlsFile(role: "CA file", path: "/tmp", reason: "is a directory, not a PEM file")) {
            try MQTTClient(configuration: configuration)
        }
        var plain = MQTTConfiguration(url: BrokerURL(host: "localhost"))
        plain.tls = MQTTTLSFiles(caFile: "/tmp/x")
        #expect(throws: MQTTError.self) { try MQTTClient(configuration: plain) }
    }
}
