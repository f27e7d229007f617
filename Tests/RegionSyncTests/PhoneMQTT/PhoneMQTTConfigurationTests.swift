import Foundation
import RegionSyncMQTT
import Testing

/// The broker URL and the venue CA as an app gives them to `PhoneMQTTConfiguration`.
@Suite("PhoneMQTTConfiguration's URL and certificates")
struct PhoneMQTTConfigurationTests {
    @Test("each scheme with its default port, an explicit port, an IPv6 host, a WebSocket path")
    func urls() throws {
        let cases: [(String, MQTTEndpoint)] = [
            ("mqtts://broker.example.com", MQTTEndpoint(transport: .tls, host: "broker.example.com", port: 8883)),
            ("mqtts://broker.example.com:8884", MQTTEndpoint(transport: .tls, host: "broker.example.com", port: 8884)),
            ("mqtt://10.0.0.2", MQTTEndpoint(transport: .tcp, host: "10.0.0.2", port: 1883)),
            ("MQTTS://[::1]:9000/", MQTTEndpoint(transport: .tls, host: "::1", port: 9000)),
            (
                "wss://broker.example.com/mqtt",
                MQTTEndpoint(transport: .secureWebSocket, host: "broker.example.com", port: 443, path: "/mqtt")
            ),
            ("ws://127.0.0.1:8080/a/b?x=1", MQTTEndpoint(transport: .webSocket, host: "127.0.0.1", port: 8080, path: "/a/b?x=1")),
        ]
        for (url, endpoint) in cases {
            #expect(try MQTTEndpoint(parsing: url) == endpoint, "\(url)")
        }
        #expect(try MQTTEndpoint(parsing: "wss://h/mqtt").description == "wss://h:443/mqtt")
        #expect(try MQTTEndpoint(parsing: "mqtts://[::1]").description == "mqtts://[::1]:8883")
    }

    @Test("a URL that cannot be used says why, naming it")
    func badURLs() {
        let cases: [(String, String)] = [
            ("broker.example.com:8883", "no scheme"),
            ("http://broker.example.com", "unsupported scheme 'http'"),
            ("mqtts://", "no host"),
            ("mqtts://h:0", "port '0' is not 1–65535"),
            ("mqtts://h:x", "port 'x' is not 1–65535"),
            ("mqtts://user:pw@h", "credentials in the URL"),
            ("mqtts://[::1", "unclosed '['"),
            ("mqtts://h/mqtt", "a path ('/mqtt') is only for ws:// and wss://"),
        ]
        for (url, reason) in cases {
            let error = #expect(throws: PhoneMQTTError.self) { try MQTTEndpoint(parsing: url) }
            guard case .invalidURL(let named, let said) = error else { continue }
            #expect(named == url && said.contains(reason), "\(url): \(said)")
        }
    }

    @Test("the venue CA as PEM (one or several certificates) or DER; anything else is refused")
    func certificates() throws {
        let der: [UInt8] = [0x30, 0x82, 0x01, 0x0A] + Array(repeating: 0x42, count: 40)
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters])
        let pem = "-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n"
        #expect(try MQTTTLSSettings.derCertificates(in: Array(pem.utf8)) == [der])
        #expect(try MQTTTLSSettings.derCertificates(in: Array((pem + "comment\n" + pem).utf8)) == [der, der])
        #expect(try MQTTTLSSettings.derCertificates(in: der) == [der])
        #expect(throws: PhoneMQTTError.self) { try MQTTTLSSettings.derCertificates(in: Array("not a certificate".utf8)) }
        #expect(throws: PhoneMQTTError.self) { try MQTTTLSSettings.derCertificates(in: Array("-----BEGIN CERTIFICATE-----\nAAAA".utf8)) }
        #expect(throws: PhoneMQTTError.self) { try MQTTTLSSettings.derCertificates(in: Array("-----BEGIN PRIVATE KEY-----\nAAAA\n".utf8)) }
        #expect(try MQTTTLSSettings(caCertificate: nil).trustedCertificates == nil, "no CA: the system's trust store")
    }

    @Test("the exact shape an app writes, with its defaults")
    func shape() {
        let configuration = PhoneMQTTConfiguration(
            url: "mqtts://broker.example.com:8883", clientID: "phone-3f9a2c", username: "phone-3f9a2c", password: "secret")
        #expect(configuration.keepAlive == .seconds(30) && configuration.connectTimeout == .seconds(5))
        #expect(configuration.caCertificate == nil && configuration.clientIdentity == nil)
        let options = configuration.clientOptions(clientID: "phone-3f9a2c-copy")
        #expect(options.clientID == "phone-3f9a2c-copy" && options.username == "phone-3f9a2c" && options.cleanSession)
    }
}
