// Coordinator ingest in process: sightings through decode + apply (route, validate, per-client
// state, coverage; the figure) against Foundation's JSONDecoder decoding the same payloads alone
// (the baseline), on the museum with 1,000 tags by each gateway, every gateway reporting all of
// its tags each window. The target is at least 1,000,000 sightings/s on one core.
import Coordinator
import Foundation
import Topology
import WireProtocol

/// Tags by each gateway in the ingest and end-to-end streams: about 210 KB per batch (the wire
/// contract's payload limit is 256 KiB).
public let tagsPerGateway = 1_000

/// Gateways on the museum, each window hearing `perBatch` of the tags near it (tag t stays by
/// gateway t mod G, at a steady distance: a crowd that lingers, as in a gallery). With `perBatch`
/// at least the tags per gateway, every tag is in every window of its gateway, as a real gateway
/// reports everything it heard; fewer makes each tag miss windows, which the coordinator rightly
/// reads as the tag leaving and coming back (exit, enter, re-plan). Answers (topic, payload) pairs.
public func makeBatches(gateways gatewayIDs: [String], tags: Int, perBatch: Int, windows: Int) -> [(String, [UInt8])] {
    let topics = try! Topics()
    var batches: [(String, [UInt8])] = []
    let encoder = WireCoding.makeEncoder()
    var seq = [String: UInt64]()
    let gateways = gatewayIDs.count
    var cursor = [Int](repeating: 0, count: gateways)
    for window in 0..<windows {
        for (g, gateway) in gatewayIDs.enumerated() {
            var sightings: [Sighting] = []
            let own = max(1, (tags - g + gateways - 1) / gateways)
            for _ in 0..<perBatch {
                let tag = g + (cursor[g] % own) * gateways
                cursor[g] += 1
                sightings.append(
                    Sighting(
                        format: "ibeacon", uuid: "5A1D0000-BEAC-4F1E-9E70-000000000001", major: UInt16(tag / 60000),
                        minor: UInt16(tag % 60000),
                        address: String(format: "5A:1D:00:%02X:%02X:%02X", tag >> 16 & 0xFF, tag >> 8 & 0xFF, tag & 0xFF),
                        rssi: -60.5 - Double(tag % 30), rssiMax: -55, count: 8, txPower: -59, distance: 2.25 + Double(tag % 17)))
            }
            seq[gateway, default: 0] += 1
            let start = Date(timeIntervalSince1970: 1_795_424_400 + Double(window))
            let batch = SightingsBatch(
                gateway: gateway, seq: seq[gateway]!, start: start, end: start.addingTimeInterval(1), sightings: sightings)
            batches.append((topics.sightings(try! Identifier(gateway)), Array(try! encoder.encode(batch))))
        }
    }
    return batches
}

public enum IngestCase {
    /// `ingest`: decode + apply against JSONDecoder decoding alone. `production`: the `ingest-flush`
    /// workload, the production path, decode + apply with the estimator and the coordinator's
    /// planner after every window (CoordinatorEngine.flush, as the coordinator does once a second,
    /// each window's clock a second on), against decode + apply alone.
    public static func make(windows: Int, production: Bool = false) throws -> WorkloadPair {
        let topology = try Topology.load(directory: repositoryRoot.appendingPathComponent("topology/museum"))
        let gatewayIDs = topology.gateways.map(\.id).sorted()
        let venue = try CoordinatorVenue(topology: topology, budget: 20)
        let batches = makeBatches(gateways: gatewayIDs, tags: tagsPerGateway * gatewayIDs.count, perBatch: tagsPerGateway, windows: windows)
        let total = batches.count * tagsPerGateway
        let topics = try Topics()
        /// Decode + apply (route, validate, per-client state, coverage) into a new engine each run
        /// (every run brings the same tags in), and with `flush` a flush after each window.
        func ingest(flush: Bool) -> Int {
            let engine = CoordinatorEngine(venue: venue)
            let decoder = InboundDecoder(topics: topics)
            for window in 0..<windows {
                let now = 1_795_424_400_000 + Int64(window + 1) * 1_000
                for (topic, payload) in batches[(window * gatewayIDs.count)..<((window + 1) * gatewayIDs.count)] {
                    payload.withUnsafeBytes { try? engine.apply(decoder.decode(topic: topic, payload: $0), now: now) }
                }
                if flush {
                    _ = engine.flush(now: now)
                    _ = engine.take()
                }
            }
            precondition(engine.counters.sightings == UInt64(total) && engine.counters.invalid == 0)
            return Int(engine.counters.sightings &+ engine.counters.plans)
        }
        let apply = Workload(unit: "sighting", items: total) { ingest(flush: false) }
        if production {
            return WorkloadPair(figure: Workload(unit: "sighting", items: total) { ingest(flush: true) }, baseline: apply)
        }
        return WorkloadPair(
            figure: apply,
            baseline: Workload(unit: "sighting", items: total) {
                var decoded = 0
                for (topic, payload) in batches {
                    decoded += (try? WireCoding.decode(SightingsBatch.self, from: payload, topic: topic))?.sightings.count ?? 0
                }
                precondition(decoded == total)
                return decoded
            })
    }
}
