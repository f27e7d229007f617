import Coordinator
import Foundation
import MosquittoTesting
import TestSupport
import Testing

/// The HTTP side's bodies as docs/http.md promises them, served by a ``CoordinatorApplication``
/// on a port the system chose.
@Suite("HTTP API bodies", .serialized)
struct HTTPAPITests {
    @Test("errors are {\"error\"} objects (with \"parameter\" for a bad parameter), /healthz is JSON, / is map.html as it is")
    func bodies() async throws {
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker, httpPort: 0)
            do {
                try await check(port: try #require(await coordinator.application.httpPort()))
            } catch {
                await coordinator.stop()
                throw error
            }
            await coordinator.stop()
        }
    }

    func check(port: Int) async throws {
        #expect(port != 0)

        let (badCode, badBody) = try await CoordinatorHarness.get(port: port, "/api/clients?limit=0")
        #expect(badCode == 400)
        let bad = try #require(try JSONSerialization.jsonObject(with: badBody) as? [String: String])
        #expect(bad["parameter"] == "limit" && bad["error"] != nil, "\(bad)")
        #expect(String(decoding: badBody, as: UTF8.self).hasPrefix("{\"error\":"), "keys sorted")

        let (missingCode, missingBody) = try await CoordinatorHarness.get(port: port, "/api/clients/nobody")
        #expect(missingCode == 404)
        #expect(String(decoding: missingBody, as: UTF8.self) == "{\"error\":\"no client nobody\"}\n")

        let (invalidCode, invalidBody) = try await CoordinatorHarness.get(port: port, "/api/clients/no%20body")
        #expect(invalidCode == 400)
        #expect(try JSONSerialization.jsonObject(with: invalidBody) as? [String: String] != nil)

        let (healthCode, healthBody) = try await CoordinatorHarness.get(port: port, "/healthz")
        #expect(healthCode == 200)
        let health = try #require(try JSONSerialization.jsonObject(with: healthBody) as? [String: Any])
        #expect(health["status"] as? String == "ok" && health["subscribed"] as? Bool == true && health["clients"] as? Int == 0, "\(health)")

        let (pageCode, page) = try await CoordinatorHarness.get(port: port, "/")
        #expect(pageCode == 200)
        let file = SharedData.packageRoot.appendingPathComponent("Sources/LiveMap/map.html")
        #expect(page == (try Data(contentsOf: file)), "the page served is map.html byte for byte")
    }
}
