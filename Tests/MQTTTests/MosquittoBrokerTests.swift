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
