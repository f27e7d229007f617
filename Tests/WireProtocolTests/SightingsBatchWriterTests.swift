import Foundation
import Testing
import WireProtocol

/// The hand-written batch JSON decodes to exactly what JSONEncoder's JSON of the same batch decodes to.
@Suite struct SightingsBatchWriterTests {
    @Test func writesWhatTheContractDecoderReadsBack() throws {
        let sightings = [
            Sighting(
                format: "ibeacon", uuid: "494E5445-4C4C-495F-524F-434B535F4857", major: 20594, minor: 62207, address: "A4:C1:38:BF:6F:AB",
                rssi: -61.5, rssiMax: -49, count: 3, txPower: -62, distance: 0.22),
            Sighting(
                format: "eddystone-uid", namespace: "EDD1EBEAC04E5DEFA017", instance: "0BDB87539B67", address: "00:00:00:00:00:01",
                rssi: -80, rssiMax: -80, count: 1, txPower: -20, distance: 1e-05),
            Sighting(format: "eddystone-tlm", address: "00:00:00:00:00:02", rssi: -127, rssiMax: -127, count: 2),
        ]
        let start: Int64 = 1_612_150_079_000_000
        let end: Int64 = 1_612_150_080_000_000
        var writer = SightingsBatchWriter()
        let written = writer.encode(gateway: "gw-1", seq: 42, startMicros: start, endMicros: end, sightings: sightings)
        let reference = SightingsBatch(
            gateway: "gw-1", seq: 42, start: Date(timeIntervalSince1970: Double(start) / 1e6),
            end: Date(timeIntervalSince1970: Double(end) / 1e6), sightings: sightings)
        let topic = "beaconfleet/v1/gateways/gw-1/sightings"
        let fromWriter = try WireCoding.decode(SightingsBatch.self, from: written, topic: topic)
        let fromEncoder = try WireCoding.decode(SightingsBatch.self, from: try WireCoding.encode(reference), topic: topic)
        #expect(fromWriter == fromEncoder)
        #expect(fromWriter.sightings == sightings)
        #expect(
            String(decoding: written, as: UTF8.self).hasPrefix("{\"end\":\"2021-02-01T03:28:00.000Z\",\"gateway\":\"gw-1\",\"seq\":42,"))
        // Reused for the next batch without leftovers.
        let empty = writer.encode(gateway: "gw-1", seq: 43, startMicros: end, endMicros: end + 1_000_000, sightings: [])
        #expect(try WireCoding.decode(SightingsBatch.self, from: empty, topic: topic).sightings.isEmpty)
    }
}
