public import Hummingbird

/// Requires the ``HTTPAccessToken`` for everything but `/healthz` and `/metrics` (probes and
/// Prometheus stay open): as `Authorization: Bearer TOKEN`, or as `?token=TOKEN` for what cannot
/// set a header (a browser's `EventSource`, and the link that opens the map). Without it: 401
/// with `WWW-Authenticate: Bearer`.
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    public let token: HTTPAccessToken

    /// Paths served without the token.
    public static var openPaths: Set<String> { ["/healthz", "/metrics"] }

    public init(token: HTTPAccessToken) {
        self.token = token
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if Self.openPaths.contains(request.uri.path) { return try await next(request, context) }
        if let header = request.headers[.authorization], header.hasPrefix("Bearer "), token.matches(header.dropFirst(7)) {
            return try await next(request, context)
        }
        if let query = request.uri.queryParameters["token"], token.matches(query) {
            return try await next(request, context)
        }
        throw HTTPAPIError(
            .unauthorized, "a bearer token is required (Authorization: Bearer TOKEN, or ?token=TOKEN)",
            headers: [.wwwAuthenticate: "Bearer realm=\"beaconfleet\""])
    }
}
