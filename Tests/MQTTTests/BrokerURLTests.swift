import MQTT
import Testing

@Suite("BrokerURL parsing")
struct BrokerURLTests {
    @Test("plain URL with default port")
    func plain() throws {
        let url = try BrokerURL(parsing: "mqtt://broker.example")
        #expect(url == BrokerURL(host: "broker.example", port: 1883))
        #expect(!url.usesTLS && url.username == nil && url.password == nil)
    }

    @Test("TLS URL with credentials, port and percent-encoding")
    func tlsWithCredentials() throws {
        let url = try BrokerURL(parsing: "mqtts://gw%40venue:p%3Ass@10.0.0.5:8884")
        #expect(url.usesTLS)
        #expect(url.host == "10.0.0.5" && url.port == 8884)
        #expect(url.username == "gw@venue" && url.password == "p:ss")
        #expect(url.description == "mqtts://gw%40venue:***@10.0.0.5:8884")
        #expect(try BrokerURL(parsing: url.unredactedString) == url)
    }

    @Test("mqtts defaults to 8883; IPv6 in brackets; trailing slash allowed")
    func defaultsAndIPv6() throws {
        #expect(try BrokerURL(parsing: "mqtts://h").port == 8883)
        let v6 = try BrokerURL(parsing: "mqtt://[::1]:1999/")
        #expect(v6.host == "::1" && v6.port == 1999 && v6.endpoint == "[::1]:1999")
    }

    @Test(
        "bad URLs are refused with the reason",
        arguments: [
            ("http://h", "unsupported scheme 'http'"), ("h:1883", "missing scheme"), ("mqtt://", "missing host"),
            ("mqtt://h:0", "port '0'"), ("mqtt://h:99999", "port '99999'"), ("mqtt://h:x", "port 'x'"),
            ("mqtt://h/topic", "unexpected path"), ("mqtt://:pw@h", "empty user name"), ("mqtt://[::1", "unterminated IPv6"),
            ("mqtt://u:%zz@h", "percent-encoding"),
        ])
    func refused(text: String, reason: String) {
        #expect {
            try BrokerURL(parsing: text)
        } throws: { error in
            guard let error = error as? MQTTError, case .invalidURL(let url, let why) = error else { return false }
            return url == text && why.contains(reason) && error.description.contains(text)
        }
        #expect(BrokerURL(text) == nil)
    }
}
