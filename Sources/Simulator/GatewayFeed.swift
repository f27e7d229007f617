import Coordinator
import Foundation
import WireProtocol

/// Gateways publishing their windows straight into a ``CoordinatorEngine``, as their agents would
/// over MQTT: each gateway's batches numbered from 1, encoded as an agent writes them and decoded
/// from the bytes as the coordinator reads them.
struct GatewayFeed {
    let engine: CoordinatorEngine
    private let decoder: InboundDecoder
    private let encoder = WireCoding.makeEncoder()
    /// The number of each gateway's last batch, by its index.
    private var seq: [UInt64]

    /// A feed into `engine` for `gateways` gateways, on `topics`.
    init(engine: CoordinatorEngine, topics: Topics, gateways: Int) {
        self.engine = engine
        self.decoder = InboundDecoder(topics: topics)
        self.seq = [UInt64](repeating: 0, count: gateways)
    }

    /// Publishes the window from `start` to `end` of gateway `index` (id `gateway`, sightings topic
    /// `topic`) with `sightings`, and applies it at `now` (milliseconds since 1970).
    mutating func publish(
        _ sightings: [Sighting], gateway index: Int, id gateway: String, topic: String, start: Date, end: Date, now: Int64
    ) throws {
        seq[index] += 1
        let batch = SightingsBatch(gateway: gateway, seq: seq[index], start: start, end: end, sightings: sightings)
        let payload = try encoder.encode(batch)
        try payload.withUnsafeBytes { raw in try engine.apply(decoder.decode(topic: topic, payload: raw), now: now) }
    }
}
