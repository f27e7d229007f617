import Logging
import MQTT
import MosquittoTesting
import ServiceLifecycle
import TestSupport
import Testing

@Suite("MQTTClient as a Service", .timeLimit(.minutes(1)))
struct ServiceTests {
    @Test("under a ServiceGroup the client connects in run() and closes on graceful shutdown")
    func serviceGroup() async throws {
        try await withMosquittoBroker { broker in
            let client = try MQTTClient(url: broker.url)
            let group = ServiceGroup(configuration: .init(services: [client], logger: Logger(label: "test")))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                try await withTimeout(.seconds(10), "the service to connect") { try await client.connected() }
                try await client.publish(topic: "service/up", payload: [1])
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(client.connectionState == .closed)
            await #expect(throws: MQTTError.closed) { try await client.publish(topic: "service/down", payload: [1]) }
        }
    }
}
