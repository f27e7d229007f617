// Decoding: advertising reports through CaptureReader + AdvertisementDecoder (the figure), against
// reading the same capture without decoding it (the baseline), on a generated btsnoop capture.
// The decode cost per report is the difference; the target is at most 1 µs.
import BeaconKit
import Foundation

public enum DecodeCase {
    /// Writes a capture of `reports` advertising reports to a temporary file (removed when the
    /// process exits) and answers the two workloads over it.
    public static func make(reports: Int) throws -> WorkloadPair {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-decode-bench-\(getpid()).btsnoop")
        try generateCapture(at: url, reports: reports)
        atexit { try? FileManager.default.removeItem(atPath: DecodeCase.capturePath) }
        capturePath = url.path
        let path = url.path
        // Checked once, outside anything measured: every report decodes, nothing is malformed.
        let statistics = try decode(path: path).statistics
        guard statistics.advertisingReports == reports, statistics.malformed == 0 else {
            throw BenchmarkCaseError("decoded \(statistics.advertisingReports) of \(reports) reports, \(statistics.malformed) malformed")
        }
        return WorkloadPair(
            figure: Workload(unit: "report", items: reports) { (try? decode(path: path).checksum) ?? 0 },
            baseline: Workload(unit: "report", items: reports) { (try? readOnly(path: path)) ?? 0 })
    }

    nonisolated(unsafe) static var capturePath = ""

    /// Read and decode: HCI events, reports, AD structures, beacons, counters.
    static func decode(path: String) throws -> (checksum: Int, statistics: DecodeStatistics) {
        let reader = try CaptureReader(path: path)
        var decoder = AdvertisementDecoder()
        var rssiSum = 0
        while let record = try reader.next() {
            decoder.decode(record) { advertisement in
                if advertisement.beacon != nil { rssiSum &+= Int(advertisement.report.rssi ?? 0) }
            }
        }
        return (rssiSum, decoder.statistics)
    }

    /// The baseline: read every record and touch its bytes, decode nothing.
    static func readOnly(path: String) throws -> Int {
        let reader = try CaptureReader(path: path)
        var bytes = 0
        while let record = try reader.next() { bytes &+= record.packet.count &+ Int(record.packet.last ?? 0) }
        return bytes
    }

    /// Writes a btsnoop 1002 capture of `reports` advertising reports: one event per report (as
    /// controllers send them with duplicate filtering off), a realistic mix of iBeacon (60 %),
    /// Eddystone UID/TLM, AltBeacon and non-beacon advertisements, plus a command every 1000 events.
    /// The iBeacons and AltBeacons carry `uuid`.
    public static func generateCapture(at url: URL, reports: Int, uuid: String = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0") throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        guard let uuid = BeaconUUID(uuid) else { throw BenchmarkCaseError("not a UUID: \(uuid)") }
        var payloads: [[UInt8]] = []
        for i in 0..<200 {
            let beacon: Beacon? =
                switch i % 10 {
                case 0...5: .iBeacon(IBeacon(uuid: uuid, major: UInt16(i / 10), minor: UInt16(i), measuredPower: -59))
                case 6:
                    .eddystoneUID(
                        EddystoneUID(txPower: -20, namespace: .init(high: 1, low: UInt64(i)), instance: .init(rawValue: UInt64(i))))
                case 7:
                    .eddystoneTLM(
                        EddystoneTLM(batteryMillivolts: 3000, rawTemperature: 0x1700, advertisingCount: UInt32(i), uptimeTenths: 1000))
                case 8: .altBeacon(AltBeacon(manufacturerID: 0x0118, id1: uuid, id2: 1, id3: UInt16(i), referenceRSSI: -60, reserved: 0))
                default: nil
                }
            let name = Array("sensor-\(i % 10)".utf8)
            let other: [UInt8] = [0x02, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name + [0x03, 0xFF, 0x59, 0x00]
            payloads.append(beacon.flatMap(AdvertisingReportEncoder.advertisingData(for:)) ?? other)
        }
        var events: [[UInt8]] = []
        for i in 0..<payloads.count {
            let report = AdvertisingReport(
                kind: .legacy, eventType: .init(rawValue: 3), address: .init(rawValue: 0xC0FF_EE00_0000 + UInt64(i)),
                addressType: .random, rssi: Int8(-40 - i % 50))
            events.append(AdvertisingReportEncoder.legacyEvent([(report, payloads[i])]))
        }
        var writer = CaptureWriter(.btsnoop(datalink: 1002))
        var time: Int64 = 1_800_000_000_000_000
        for i in 0..<reports {
            writer.append(.event, events[i % events.count], timestampMicroseconds: time)
            time += 997
            if i % 1000 == 999 {
                writer.append(.command, [0x0C, 0x20, 0x02, 0x01, 0x00], timestampMicroseconds: time)
            }
            if writer.bytes.count > 1 << 20 {
                handle.write(Data(writer.takeBytes()))
            }
        }
        handle.write(Data(writer.takeBytes()))
    }
}
