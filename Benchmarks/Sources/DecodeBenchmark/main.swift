// Decode throughput: advertising reports per second through CaptureReader + AdvertisementDecoder,
// against reading the same capture without decoding (the baseline), on a generated capture of
// 1.5 million reports. Release build: `scripts/bench decode`.
//
// The decode cost per report is (read + decode time − read-only time) / reports; the target is
// at most 1 µs.
import BeaconKit
import BenchmarkSupport
import Foundation

let reportCount = Int(ProcessInfo.processInfo.environment["DECODE_BENCH_REPORTS"] ?? "") ?? 1_500_000
let rounds = 5

/// Writes a btsnoop 1002 capture of `reports` advertising reports: one event per report (as
/// controllers send them with duplicate filtering off), a realistic mix of iBeacon (60 %),
/// Eddystone UID/TLM, AltBeacon and non-beacon advertisements, plus a command every 1000 events.
func generateCapture(at url: URL, reports: Int) throws -> [[UInt8]] {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    var payloads: [[UInt8]] = []
    for i in 0..<200 {
        let beacon: Beacon? =
            switch i % 10 {
            case 0...5: .iBeacon(IBeacon(uuid: uuid, major: UInt16(i / 10), minor: UInt16(i), measuredPower: -59))
            case 6:
                .eddystoneUID(EddystoneUID(txPower: -20, namespace: .init(high: 1, low: UInt64(i)), instance: .init(rawValue: UInt64(i))))
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
    return events
}

/// Nanoseconds `body` takes.
func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start)
}

let url = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-decode-bench-\(getpid()).btsnoop")
defer { try? FileManager.default.removeItem(at: url) }
print("generating \(reportCount) advertising reports …")
let distinctEvents = try generateCapture(at: url, reports: reportCount)
let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
print("capture: \(url.path), \(size / 1_000_000) MB, \(reportCount) reports")

// The events in one contiguous buffer, to time decoding alone (no file, no reader).
var eventBytes: [UInt8] = []
var eventRanges: [Range<Int>] = []
for event in distinctEvents {
    eventRanges.append(eventBytes.count..<(eventBytes.count + event.count))
    eventBytes += event
}

var memoryBest = Double.infinity
var readBest = Double.infinity
var decodeBest = Double.infinity
var checksum = 0
var statistics = DecodeStatistics()
for _ in 0..<rounds {
    // Decoding alone: the same number of reports from events already in memory.
    memoryBest = min(
        memoryBest,
        measure {
            var decoder = AdvertisementDecoder()
            var rssiSum = 0
            eventBytes.withUnsafeBytes { all in
                var index = 0
                for _ in 0..<reportCount {
                    let range = eventRanges[index]
                    index = index + 1 == eventRanges.count ? 0 : index + 1
                    decoder.decode(type: .event, packet: UnsafeRawBufferPointer(rebasing: all[range]), timestampMicroseconds: 0) {
                        advertisement in
                        if advertisement.beacon != nil { rssiSum &+= Int(advertisement.report.rssi ?? 0) }
                    }
                }
            }
            checksum &+= rssiSum
        })
    // Baseline: read every record, touch its bytes, decode nothing.
    readBest = min(
        readBest,
        try measure {
            let reader = try CaptureReader(path: url.path)
            var bytes = 0
            while let record = try reader.next() { bytes &+= record.packet.count &+ Int(record.packet.last ?? 0) }
            checksum &+= bytes
        })
    // Read and decode: HCI events, reports, AD structures, beacons, counters.
    decodeBest = min(
        decodeBest,
        try measure {
            let reader = try CaptureReader(path: url.path)
            var decoder = AdvertisementDecoder()
            var rssiSum = 0
            while let record = try reader.next() {
                decoder.decode(record) { advertisement in
                    if advertisement.beacon != nil { rssiSum &+= Int(advertisement.report.rssi ?? 0) }
                }
            }
            checksum &+= rssiSum
            statistics = decoder.statistics
        })
}
precondition(statistics.advertisingReports == reportCount, "decoded \(statistics.advertisingReports) of \(reportCount) reports")
precondition(statistics.malformed == 0, "the generated capture should decode without malformed data")

let reports = Double(reportCount)
let readNs = readBest / reports
let decodeNs = decodeBest / reports
let costNs = (decodeBest - readBest) / reports
func fixed(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }
func rate(_ ns: Double) -> String { fixed(1000 / ns, 2) + " M reports/s" }
print(
    "beacons decoded per pass: \(statistics.beacons.total) (ibeacon \(statistics.beacons.iBeacon)); malformed \(statistics.malformed); checksum \(checksum & 0xFFFF)"
)
print("baseline  read only     : \(fixed(readNs)) ns/report, \(rate(readNs))")
print("measured  read + decode : \(fixed(decodeNs)) ns/report, \(rate(decodeNs))")
print("decode alone (in memory): \(fixed(memoryBest / reports)) ns/report, \(rate(memoryBest / reports))")
print("ratio     decode / read : \(fixed(decodeBest / readBest, 2))x")
print("decode cost per report  : \(fixed(costNs)) ns (target <= 1000 ns: \(verdict(costNs) { $0 <= 1000 })), best of \(rounds) rounds")
