import Foundation
import Hummingbird
import LiveMap
import Logging
import MQTT
import ServiceLifecycle
public import WireProtocol

/// The coordinator's HTTP side: `/healthz`, `/metrics` (Prometheus text), the live map (`/`) with
/// its stream (`/api/stream`), `/api/clients` (list), `/api/clients/{id}`, `/api/gateways` (each
/// gateway's health, software version and configuration revision), `/api/topology` and
/// `/api/calibration` (JSON). With a `token`, everything but `/healthz` and `/metrics` requires it
/// (``BearerTokenMiddleware``). See docs/http.md.
enum CoordinatorHTTPServer {
    /// An HTTP application (a `Service`) serving `core` on `host`:`port`; `onServerRunning` is told
    /// the port it listens on. ``CoordinatorApplication`` runs it after the ``CoordinatorService``.
    static func make(
        core: CoordinatorCore, metrics: CoordinatorMetrics, client: MQTTClient, subscribed: @escaping @Sendable () -> Bool,
        gateways: GatewayDirectory? = nil, host: String, port: Int,
        token: HTTPAccessToken? = nil, onServerRunning: @escaping @Sendable (Int?) async -> Void = { _ in }, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        if let token { router.add(middleware: BearerTokenMiddleware(token: token)) }
        router.get("/healthz") { _, _ -> Response in
            let state = client.connectionState
            let ready = state.isConnected && subscribed()
            let health = Health(
                status: ready ? "ok" : "degraded", broker: "\(state)", subscribed: subscribed(), clients: await core.clientCount)
            return try JSONLine.response(health, status: ready ? .ok : .serviceUnavailable)
        }
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        router.get("/") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: MapPage.html)))
        }
        router.get("/api/topology") { _, _ -> Response in
            json(.ok, ByteBuffer(string: await core.topologyJSON()))
        }
        router.get("/api/gateways") { _, _ -> Response in
            try JSONLine.response(GatewayList(gateways: gateways?.gateways() ?? []))
        }
        router.get("/api/calibration") { _, _ -> Response in
            try JSONLine.response(await core.calibration())
        }
        router.get("/api/clients") { request, _ -> Response in
            let query: ClientQuery
            do throws(HTTPQueryError) {
                query = try ClientQuery(parameters: request.uri.queryParameters.map { (String($0.key), String($0.value)) })
            } catch {
                throw HTTPAPIError(.badRequest, error.description, parameter: error.parameter)
            }
            let (total, page) = await core.clients(query)
            return try JSONLine.response(ClientList(total: total, offset: query.offset, limit: query.limit, clients: page))
        }
        router.get("/api/clients/:id") { _, context -> Response in
            let id = context.parameters.get("id") ?? ""
            guard Identifier.isValid(id) else { throw HTTPAPIError(.badRequest, "invalid client id: expected [A-Za-z0-9._-]{1,64}") }
            guard let snapshot = await core.client(id) else { throw HTTPAPIError(.notFound, "no client \(id)") }
            return try JSONLine.response(snapshot)
        }
        router.get("/api/stream") { _, _ -> Response in
            let tick = core.map.configuration.tick
            return Response(
                status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"],
                body: ResponseBody { writer in
                    // Subscribed only once the body is written: a browser gone before never holds a buffer.
                    let (subscription, snapshot) = await core.subscribeMap()
                    defer { subscription.cancel() }
                    try await writer.write(ByteBuffer(bytes: try MapStreamEvent.snapshot(snapshot)))
                    var idle = Duration.zero
                    // Ends when the browser goes (a write fails), or the server stops.
                    while !Task.isCancelled && !Task.isShuttingDownGracefully {
                        try await Task.sleep(for: tick)
                        let batch = subscription.take()
                        if batch.isEmpty {
                            idle += tick
                            guard idle >= .seconds(5) else { continue }
                            idle = .zero
                            try await writer.write(ByteBuffer(bytes: MapStreamEvent.keepAlive))
                            continue
                        }
                        idle = .zero
                        let now = Int64(Date().timeIntervalSince1970 * 1000)
                        try await writer.write(ByteBuffer(bytes: try MapStreamEvent.update(batch, time: now)))
                    }
                    try await writer.finish(nil)
                })
        }
        return Application(
            router: router, configuration: .init(address: .hostname(host, port: port), serverName: "beaconfleet-coordinator"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port) }, logger: logger)
    }

    private static func json(_ status: HTTPResponse.Status, _ body: ByteBuffer) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: body))
    }
}

/// `GET /healthz`'s answer: `{"broker": "connected", "clients": N, "status": "ok", "subscribed": true}`
/// (`degraded`, with a `503`, until the broker is connected and has acknowledged the subscriptions).
struct Health: Encodable, Sendable {
    var status: String
    var broker: String
    var subscribed: Bool
    var clients: Int
}

/// `GET /api/clients`'s answer: one page of clients in id order, and how many match in all.
public struct ClientList: Codable, Sendable, Equatable {
    public var total: Int
    public var offset: Int
    public var limit: Int
    public var clients: [ClientSnapshot]
}

/// `/api/gateways`: every gateway, by id.
struct GatewayList: Encodable, Sendable {
    var gateways: [GatewayHealth]
}
