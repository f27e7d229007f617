import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Why a request to etcd failed.
public struct EtcdError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Where etcd is (`--coordination`): `etcd://host:2379,host:2379,…` for its HTTP/JSON gateway on
/// plain HTTP, `etcds://…` for HTTPS (the system's trusted CAs); `user:password@` before the
/// first host authenticates with etcd's user/password auth (the gateway cannot authenticate by a
/// TLS client certificate's common name).
public struct EtcdEndpoints: Sendable, Equatable, CustomStringConvertible {
    /// The gateways' base URLs (`http://host:port`), tried in turn.
    public var urls: [String]
    public var user: String?
    public var password: String?

    /// Parses `etcd://[user:password@]host:port,host:port`; throws on anything else.
    public init(parsing text: String) throws(EtcdError) {
        let scheme: String
        var rest: Substring
        if text.hasPrefix("etcd://") {
            (scheme, rest) = ("http", text.dropFirst("etcd://".count))
        } else if text.hasPrefix("etcds://") {
            (scheme, rest) = ("https", text.dropFirst("etcds://".count))
        } else {
            throw EtcdError("\(text): expected etcd://host:port[,host:port…] (or etcds:// for TLS)")
        }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard let colon = credentials.firstIndex(of: ":") else { throw EtcdError("\(text): expected user:password@ before the hosts") }
            user = String(credentials[..<colon]).removingPercentEncoding
            password = String(credentials[credentials.index(after: colon)...]).removingPercentEncoding
        }
        urls = try rest.split(separator: ",", omittingEmptySubsequences: false).map { host throws(EtcdError) in
            let host = host.hasSuffix("/") ? host.dropLast() : host
            guard !host.isEmpty, !host.contains("/") else { throw EtcdError("\(text): expected host:port between commas") }
            return "\(scheme)://\(host.contains(":") ? String(host) : "\(host):2379")"
        }
    }

    /// The URLs, without the password.
    public var description: String { urls.joined(separator: ",") + (user.map { " as \($0)" } ?? "") }
}

/// A key and its value as etcd keeps them.
struct EtcdKeyValue: Sendable, Equatable {
    var key: String
    var value: String
    /// The revision that created the key (a fencing token for an owner key: it never changes while the key lives).
    var createRevision: Int64
    var lease: Int64
}

/// A change seen by a watch.
enum EtcdEvent: Sendable, Equatable {
    case put(EtcdKeyValue)
    case delete(key: String)
}

/// A small client of etcd's v3 HTTP/JSON gateway (`/v3/…`, keys and values in base64, 64-bit
/// integers as strings), on AsyncHTTPClient: leases, create-if-absent transactions, ranges and
/// watches. Each request goes to the endpoint that last answered and moves to the next on a
/// failure (a refused connection, a timeout, `no leader`); with a user it authenticates first and
/// again when the token expires.
final class EtcdClient: Sendable {
    let endpoints: EtcdEndpoints
    private let http: HTTPClient
    private let state = Mutex<(current: Int, token: String?)>((0, nil))

    init(endpoints: EtcdEndpoints) {
        self.endpoints = endpoints
        var configuration = HTTPClient.Configuration()
        // A dead node refuses at once; a stopped or cut-off one must not hold a renewal for long.
        configuration.timeout = HTTPClient.Configuration.Timeout(connect: .milliseconds(500))
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    // MARK: Leases

    /// Grants a lease of `ttl` seconds: its id and the TTL granted.
    func grant(ttl: Int64, timeout: Duration = .seconds(2)) async throws(EtcdError) -> (id: Int64, ttl: Int64) {
        let json = try await call("/v3/lease/grant", ["TTL": "\(ttl)"], timeout: timeout)
        guard let id = int(json["ID"]), let granted = int(json["TTL"]), granted > 0 else {
            throw EtcdError("lease grant: \(json["error"] ?? "no lease in the answer")")
        }
        return (id, granted)
    }

    /// Renews `lease`: the TTL it has now, 0 when it is gone (expired or revoked).
    func keepAlive(_ lease: Int64, timeout: Duration) async throws(EtcdError) -> Int64 {
        let json = try await call("/v3/lease/keepalive", ["ID": "\(lease)"], timeout: timeout)
        return int((json["result"] as? [String: Any])?["TTL"]) ?? 0
    }

    /// Revokes `lease`: every key bound to it is deleted at once.
    func revoke(_ lease: Int64, timeout: Duration = .seconds(1)) async throws(EtcdError) {
        _ = try await call("/v3/lease/revoke", ["ID": "\(lease)"], timeout: timeout)
    }

    // MARK: Keys

    /// Puts `key` bound to `lease`; the revision of the put.
    @discardableResult
    func put(_ key: String, _ value: String, lease: Int64) async throws(EtcdError) -> Int64 {
        let json = try await call("/v3/kv/put", ["key": Self.base64(key), "value": Self.base64(value), "lease": "\(lease)"])
        return Self.revision(json)
    }

    /// What ``create(_:_:lease:)`` found.
    enum Creation: Equatable {
        /// Created at this revision.
        case created(revision: Int64)
        /// The key exists.
        case exists(EtcdKeyValue)
    }

    /// Creates `key` bound to `lease` if it does not exist, in one transaction (compare its create
    /// revision with 0); otherwise returns the key as it is.
    func create(_ key: String, _ value: String, lease: Int64) async throws(EtcdError) -> Creation {
        let encoded = Self.base64(key)
        let json = try await call(
            "/v3/kv/txn",
            [
                "compare": [["key": encoded, "target": "CREATE", "result": "EQUAL", "create_revision": "0"]],
                "success": [["request_put": ["key": encoded, "value": Self.base64(value), "lease": "\(lease)"]]],
                "failure": [["request_range": ["key": encoded]]],
            ] as [String: Any])
        if json["succeeded"] as? Bool == true { return .created(revision: Self.revision(json)) }
        let responses = json["responses"] as? [[String: Any]] ?? []
        let range = responses.first?["response_range"] as? [String: Any]
        guard let kv = (range?["kvs"] as? [[String: Any]])?.first.flatMap(Self.keyValue) else {
            throw EtcdError("txn on \(key): neither created nor found")  // deleted in between: the caller tries again
        }
        return .exists(kv)
    }

    /// Deletes `key` if it is bound to `lease` (someone else's key stays); whether it did.
    @discardableResult
    func delete(_ key: String, ifLease lease: Int64) async throws(EtcdError) -> Bool {
        let encoded = Self.base64(key)
        let json = try await call(
            "/v3/kv/txn",
            [
                "compare": [["key": encoded, "target": "LEASE", "result": "EQUAL", "lease": "\(lease)"]],
                "success": [["request_delete_range": ["key": encoded]]],
            ] as [String: Any])
        return json["succeeded"] as? Bool == true
    }

    /// Every key under `prefix`, and the store's revision then.
    func range(prefix: String) async throws(EtcdError) -> (revision: Int64, kvs: [EtcdKeyValue]) {
        let json = try await call("/v3/kv/range", ["key": Self.base64(prefix), "range_end": Self.base64(Self.prefixEnd(prefix))])
        return (Self.revision(json), (json["kvs"] as? [[String: Any]] ?? []).compactMap(Self.keyValue))
    }

    /// Watches the keys under `prefix` from revision `from` on, calling `onEvents` with each batch
    /// and its revision, until the stream ends (returns) or fails (throws). A compacted `from`
    /// throws ``EtcdError`` (the caller ranges again).
    func watch(prefix: String, from: Int64, _ onEvents: ([EtcdEvent], Int64) async -> Void) async throws(EtcdError) {
        let body: [String: Any] = [
            "create_request": [
                "key": Self.base64(prefix), "range_end": Self.base64(Self.prefixEnd(prefix)), "start_revision": "\(from)",
            ]
        ]
        var lastError: EtcdError?
        for _ in endpoints.urls.indices {
            let (url, token) = state.withLock { (endpoints.urls[$0.current], $0.token) }
            do {
                let request = try request(url + "/v3/watch", body, token: token)
                // A watch lasts until it is cancelled: the deadline only bounds a stream nobody ends.
                let response = try await http.execute(request, timeout: .hours(24))
                guard response.status == .ok else {
                    throw EtcdError("watch: HTTP \(response.status.code) from \(url)")
                }
                var pending: [UInt8] = []
                for try await chunk in response.body {
                    pending += chunk.readableBytesView
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = Array(pending[..<newline])
                        pending.removeFirst(newline + 1)
                        guard !line.isEmpty, let json = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                            continue
                        }
                        if let error = json["error"] { throw EtcdError("watch: \(error)") }
                        guard let result = json["result"] as? [String: Any] else { continue }
                        if let compacted = int(result["compact_revision"]), compacted > 0 {
                            throw EtcdError("watch: revision \(from) compacted (now \(compacted))")
                        }
                        if result["canceled"] as? Bool == true { throw EtcdError("watch: cancelled by etcd") }
                        let events = (result["events"] as? [[String: Any]] ?? []).compactMap(Self.event)
                        let revision = int((result["header"] as? [String: Any])?["revision"]) ?? 0
                        await onEvents(events, revision)
                    }
                }
                return
            } catch {
                if Task.isCancelled { throw EtcdError("watch cancelled") }
                lastError = error as? EtcdError ?? EtcdError("watch on \(url): \(error)")
                next(after: url)
            }
        }
        throw lastError ?? EtcdError("watch: no endpoint")
    }

    // MARK: Requests

    /// POSTs `body` to `path` on the current endpoint, then on each other in turn until one
    /// answers 200; authenticates first when a user is configured.
    private func call(_ path: String, _ body: [String: Any], timeout: Duration = .seconds(2)) async throws(EtcdError) -> [String: Any] {
        var lastError: EtcdError?
        for attempt in 0..<(endpoints.urls.count + 1) {
            let (url, token) = state.withLock { (endpoints.urls[$0.current], $0.token) }
            do {
                if endpoints.user != nil, token == nil {
                    try await authenticate(url)
                }
                let current = state.withLock { $0.token }
                let response = try await http.execute(try request(url + path, body, token: current), timeout: Self.amount(timeout))
                let bytes = try await response.body.collect(upTo: 4 << 20)
                let json = (try? JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any]) ?? [:]
                if response.status == .ok { return json }
                let message = "\(json["message"] ?? json["error"] ?? "HTTP \(response.status.code)")"
                if message.contains("auth token") || message.contains("invalid auth") {
                    state.withLock { $0.token = nil }  // expired: authenticate again
                    if attempt == 0 { continue }
                }
                throw EtcdError("\(path) on \(url): \(message)")
            } catch {
                if Task.isCancelled { throw EtcdError("\(path): cancelled") }
                lastError = error as? EtcdError ?? EtcdError("\(path) on \(url): \(error)")
                next(after: url)
            }
        }
        throw lastError ?? EtcdError("\(path): no endpoint")
    }

    private func authenticate(_ url: String) async throws {
        let response = try await http.execute(
            try request(url + "/v3/auth/authenticate", ["name": endpoints.user ?? "", "password": endpoints.password ?? ""], token: nil),
            timeout: .seconds(2))
        let bytes = try await response.body.collect(upTo: 1 << 16)
        guard response.status == .ok, let json = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any],
            let token = json["token"] as? String
        else { throw EtcdError("authenticating as \(endpoints.user ?? ""): HTTP \(response.status.code)") }
        state.withLock { $0.token = token }
    }

    /// Moves on from `url` (unless another request moved on already).
    private func next(after url: String) {
        state.withLock { state in
            if endpoints.urls[state.current] == url {
                state.current = (state.current + 1) % endpoints.urls.count
                if endpoints.user != nil { state.token = nil }  // a token is per member of the cluster
            }
        }
    }

    private func request(_ url: String, _ body: [String: Any], token: String?) throws -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let token { request.headers.add(name: "Authorization", value: token) }
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        return request
    }

    // MARK: JSON

    static func amount(_ duration: Duration) -> TimeAmount {
        .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    static func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

    static func text(_ base64: Any?) -> String? {
        (base64 as? String).flatMap { Data(base64Encoded: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first key after every key starting with `prefix` (its last byte + 1).
    static func prefixEnd(_ prefix: String) -> String {
        var bytes = Array(prefix.utf8)
        bytes[bytes.count - 1] += 1
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func revision(_ json: [String: Any]) -> Int64 {
        int((json["header"] as? [String: Any])?["revision"]) ?? 0
    }

    private static func keyValue(_ json: [String: Any]) -> EtcdKeyValue? {
        guard let key = text(json["key"]) else { return nil }
        return EtcdKeyValue(
            key: key, value: text(json["value"]) ?? "", createRevision: int(json["create_revision"]) ?? 0, lease: int(json["lease"]) ?? 0)
    }

    private static func event(_ json: [String: Any]) -> EtcdEvent? {
        guard let kv = json["kv"] as? [String: Any], let key = text(kv["key"]) else { return nil }
        if json["type"] as? String == "DELETE" { return .delete(key: key) }
        return keyValue(kv).map(EtcdEvent.put)
    }
}

/// A 64-bit integer the gateway wrote as a string (or a number).
private func int(_ value: Any?) -> Int64? {
    switch value {
    case let text as String: Int64(text)
    case let number as NSNumber: number.int64Value
    default: nil
    }
}
