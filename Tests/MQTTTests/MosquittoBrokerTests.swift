import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing

@Suite("MosquittoBroker", .timeLimit(.minutes(1)))
struct MosquittoBrokerTests {
    @Test("starts on a free port, stops, restarts on the same port, and is killed abruptly")
    func lifecycle() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.kill() }
        let pid = try #require(broker.processIdentifier)
        #expect(broker.url.port == broker.port && broker.url.host == "127.0.0.1")
        #expect(broker.log.contains("running"))
        await broker.stop()
        #expect(!broker.isRunning)
        #expect(kill(pid, 0) != 0)  // the process is gone and reaped
        try await broker.restart()
        #expect(broker.isRunning && broker.processIdentifier != pid)
        try await withConnectedClient(MQTTConfiguration(url: broker.url)) { client in
            try await client.publish(topic: "alive", payload: [1])
        }
        let second = try #require(broker.processIdentifier)
        broker.kill()
        #expect(!broker.isRunning && kill(second, 0) != 0)
    }

    @Test("a stopped broker's port stays reserved: no other server can listen there, and the broker gets it back")
    func stoppedBrokersPortIsReserved() async throws {
        let broker = try await MosquittoBroker.start()
        defer { broker.kill() }
        await broker.stop()
        #expect(!LoopbackPort.accepts(broker.port))
        #expect(Self.listen(on: broker.port) == EADDRINUSE, "another server took the port of a stopped broker")
        try await broker.restart()
        #expect(LoopbackPort.accepts(broker.port))

        let port = try LoopbackPort.hold()
        #expect(Self.listen(on: port) == EADDRINUSE)
        LoopbackPort.release(port)
        #expect(Self.listen(on: port) == 0, "a released port is free again")
    }

    /// Binds and listens on 127.0.0.1:`port` as an unrelated server would (no SO_REUSEADDR), closes
    /// the socket, and returns 0 or the errno of the failure.
    static func listen(on port: Int) -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return errno }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(descriptor, 1) == 0 else { return errno }
        return 0
    }

    @Test("a configuration error reports mosquitto's own message")
    func badConfiguration() async throws {
        await #expect {
            _ = try await MosquittoBroker.start(.init(extraConfiguration: ["no_such_option 1"]))
        } throws: { error in
            guard case .exited(_, let log) = error as? MosquittoBrokerError else { return false }
            return log.contains("no_such_option")
        }
        await #expect(throws: MosquittoBrokerError.fileMissing(role: "ACL file", path: "/nonexistent/acl")) {
            _ = try await MosquittoBroker.start(.init(aclFile: "/nonexistent/acl"))
        }
    }
}
