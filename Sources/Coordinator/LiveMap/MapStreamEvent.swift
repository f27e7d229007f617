import Foundation
import WireProtocol

/// The live map's Server-Sent Events (`GET /api/stream`), one JSON object per `data:` line:
///
/// - `snapshot` (first, and again after a reconnect): `{"time", "topology": {"name", "revision"},
///   "clients": [marker…], "gateways": [{"id", "online"}…]}`;
/// - `update`: `{"time", "clients": [marker…], "removed": [id…]}` plus `"gateways"` when one went
///   online or offline, `"topology": true` after a reload, `"dropped": N` when the subscriber's
///   buffer was full and N waiting updates were dropped.
///
/// A marker is ``ClientMarker/appendJSON(to:)``'s object; `time` is the coordinator's clock in
/// milliseconds since 1970 (the page compares `lastSeen` with it, not with the browser's clock).
enum MapStreamEvent {
    /// The `snapshot` event.
    static func snapshot(_ snapshot: CoordinatorCore.MapSnapshot) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + snapshot.clients.count * 160)
        out.append(contentsOf: "retry: 2000\nevent: snapshot\ndata: {\"time\":".utf8)
        JSONBytes.appendInteger(snapshot.time, to: &out)
        out.append(contentsOf: ",\"topology\":{\"name\":".utf8)
        JSONBytes.appendString(snapshot.topology.name, to: &out)
        out.append(contentsOf: ",\"revision\":".utf8)
        JSONBytes.appendString(snapshot.topology.revision, to: &out)
        out.append(contentsOf: "},\"clients\":".utf8)
        appendList(snapshot.clients, to: &out) { $0.appendJSON(to: &$1) }
        out.append(contentsOf: ",\"gateways\":".utf8)
        appendList(snapshot.gateways, to: &out) { $0.appendJSON(to: &$1) }
        out.append(contentsOf: "}\n\n".utf8)
        return out
    }

    /// The `update` event for `batch`.
    static func update(_ batch: MapSubscription.Batch, time: Int64) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + batch.clients.count * 160)
        out.append(contentsOf: "event: update\ndata: {\"time\":".utf8)
        JSONBytes.appendInteger(time, to: &out)
        out.append(contentsOf: ",\"clients\":".utf8)
        appendList(batch.clients, to: &out) { $0.appendJSON(to: &$1) }
        out.append(contentsOf: ",\"removed\":".utf8)
        appendList(batch.removed, to: &out) { JSONBytes.appendString($0, to: &$1) }
        if let gateways = batch.gateways {
            out.append(contentsOf: ",\"gateways\":".utf8)
            appendList(gateways, to: &out) { $0.appendJSON(to: &$1) }
        }
        if batch.topologyChanged { out.append(contentsOf: ",\"topology\":true".utf8) }
        if batch.dropped > 0 {
            out.append(contentsOf: ",\"dropped\":".utf8)
            JSONBytes.appendInteger(Int64(batch.dropped), to: &out)
        }
        out.append(contentsOf: "}\n\n".utf8)
        return out
    }

    /// A comment line: keeps proxies from closing an idle stream and notices a browser gone.
    static let keepAlive = Array(": keep-alive\n\n".utf8)

    private static func appendList<T>(_ items: [T], to out: inout [UInt8], _ append: (T, inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            append(item, &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
