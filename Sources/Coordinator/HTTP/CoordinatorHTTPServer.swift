import Foundation
public import Hummingbird
public import Logging
public import MQTT
import WireProtocol

/// The coordinator's HTTP side: `/healthz`, `/metrics` (Prometheus text) and `/api/clients/{id}` (JSON).
public enum CoordinatorHTTPServer {
    /// An HTTP application (a `Service`) serving `core` on `host`:`port`. Run it in the same
    /// `ServiceGroup`, after the ``CoordinatorService``.
    public static func make(
        core: CoordinatorCore, metrics: CoordinatorMetrics, client: MQTTClient, host: String, port: Int,
        logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/healthz") { _, _ -> Response in
            let state = client.connectionState
            let connected: Bool
            if case .connected = state { connected = true } else { connected = false }
            let body = "{\"status\":\"\(connected ? "ok" : "degraded")\",\"broker\":\"\(state)\",\"clients\":\(await core.clientCount)}\n"
            return Response(
                status: connected ? .ok : .serviceUnavailable, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        router.get("/api/clients/:id") { _, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard Identifier.isValid(id) else {
                return Response(
                    status: .badRequest, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"invalid client id: expected [A-Za-z0-9._-]{1,64}\"}\n")))
            }
            guard let snapshot = await core.client(id), let data = try? WireCoding.makeEncoder().encode(snapshot) else {
                return Response(
                    status: .notFound, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: "{\"error\":\"no client \(id)\"}\n")))
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "beaconfleet-coordinator"),
            logger: logger)
    }
}
