import Foundation
import WireProtocol

/// The live map's Server-Sent Events (`GET /api/stream`), one JSON object per `data:` line, keys
/// sorted (`WireCoding`'s encoder):
///
/// - `snapshot` (first, and again after a reconnect): `{"clients": [marker…], "gateways":
///   [{"id", "online"}…], "time", "topology": {"name", "revision"}}`;
/// - `update`: `{"clients": [marker…], "removed": [id…], "time"}` plus `"gateways"` when one went
///   online or offline, `"topology": true` after a reload, `"dropped": N` when the subscriber's
///   buffer was full and N waiting updates were dropped.
///
/// A marker is ``ClientMarker``'s encoding; `time` is the coordinator's clock in milliseconds
/// since 1970 (the page compares `lastSeen` with it, not with the browser's clock).
public enum MapStreamEvent {
    /// The `update` event's data; the optional members are left out when absent.
    struct Update: Encodable {
        var time: Int64
        var clients: [ClientMarker]
        var removed: [String]
        var gateways: [GatewayMarker]?
        var topology: Bool?
        var dropped: Int?
    }

    /// The `snapshot` event.
    public static func snapshot(_ snapshot: MapSnapshot) throws -> [UInt8] {
        try event("retry: 2000\nevent: snapshot", snapshot)
    }

    /// The `update` event for `batch`.
    public static func update(_ batch: MapSubscription.Batch, time: Int64) throws -> [UInt8] {
        let data = Update(
            time: time, clients: batch.clients, removed: batch.removed, gateways: batch.gateways,
            topology: batch.topologyChanged ? true : nil, dropped: batch.dropped > 0 ? batch.dropped : nil)
        return try event("event: update", data)
    }

    /// A comment line: keeps proxies from closing an idle stream and notices a browser gone.
    public static let keepAlive = Array(": keep-alive\n\n".utf8)

    /// `fields`, then `data` as one `data:` line, then the blank line that ends an event.
    private static func event(_ fields: String, _ data: some Encodable) throws -> [UInt8] {
        var out = Array("\(fields)\ndata: ".utf8)
        out += try WireCoding.makeEncoder().encode(data)
        out += Array("\n\n".utf8)
        return out
    }
}
