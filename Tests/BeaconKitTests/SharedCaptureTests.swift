import BeaconKit
import Foundation
import TestSupport
import Testing

/// The real captures in ../shared/data/captures, with the counts its README states (made there
/// with two independent parsers).
@Suite(.requiresSharedData)
struct SharedCaptureTests {
    @Test(
        "records, legacy and extended reports as the README counts them, nothing malformed",
        arguments: [
            ("horizon74-ibeacon.btsnoop", 2572, 412, 0), ("multireport.btsnoop", 69, 59, 0), ("extended-reports.btsnoop", 695, 0, 79),
            ("connection-gatt.btsnoop", 1198, 29, 0),
        ])
    func readmeCounts(capture: String, records: Int, legacyReports: Int, extendedReports: Int) throws {
        let decoding = try CaptureDecoding(sharedCapture: capture)
        #expect(decoding.capture.records == records)
        #expect(decoding.capture.malformedRecords == 0)
        #expect(decoding.statistics.legacyReports == legacyReports)
        #expect(decoding.statistics.extendedReports == extendedReports)
        #expect(decoding.statistics.malformed == 0)
    }

    @Test func horizon74HasExactlyTheElevenIBeaconFrames() throws {
        let decoding = try CaptureDecoding(sharedCapture: "horizon74-ibeacon.btsnoop")
        #expect(decoding.format == .btsnoop(datalink: 1002))

        let beacons = decoding.beacons
        #expect(beacons.count == 11)
        #expect(decoding.statistics.beacons.iBeacon == 11)
        #expect(decoding.statistics.beacons.total == 11)
        var majors: [UInt16: Int] = [:]
        for advertisement in beacons {
            guard case .iBeacon(let beacon)? = advertisement.beacon else {
                Issue.record("expected an iBeacon, got \(String(describing: advertisement.beacon))")
                continue
            }
            #expect(beacon.uuid.description == "494E5445-4C4C-495F-524F-434B535F4857")
            #expect(beacon.minor == 62207)
            #expect(beacon.measuredPower == -62)
            majors[beacon.major, default: 0] += 1
            let rssi = try #require(advertisement.report.rssi)
            #expect((-94)...(-49) ~= rssi)
            #expect(advertisement.timestampMicroseconds != nil)
        }
        #expect(majors == [20594: 10, 20597: 1])
        #expect(Set(beacons.map(\.report.address)).count == 4)
        #expect(beacons.compactMap(\.report.rssi).min() == -94)
        #expect(beacons.compactMap(\.report.rssi).max() == -49)

        // The first iBeacon is in a scan response (event type 4) without a Flags AD.
        let first = try #require(beacons.first)
        #expect(first.report.eventType.rawValue == 4)
        #expect(first.report.isScanResponse)
        #expect(first.parsedData().flags == nil)
    }

    @Test func horizon74CommandWithIBeaconBytesIsNotAnAdvertisement() throws {
        let decoding = try CaptureDecoding(sharedCapture: "horizon74-ibeacon.btsnoop")
        let pattern: [UInt8] = [0x4C, 0x00, 0x02, 0x15]
        func contains(_ bytes: [UInt8]) -> Bool {
            bytes.count >= 4 && (0...(bytes.count - 4)).contains { bytes[$0..<($0 + 4)].elementsEqual(pattern) }
        }
        let commands = decoding.packets.filter { $0.type == .command && contains($0.bytes) }
        #expect(commands.count == 1, "the capture holds one HCI command carrying 4C 00 02 15 (a vendor scan filter)")
        let events = decoding.packets.filter { $0.type == .event && contains($0.bytes) }
        #expect(events.count == 11, "only the 11 advertising report events carry the iBeacon prefix as advertisements")
    }

    @Test func multireportDecodesBothReportsOfEveryTwoReportEvent() throws {
        let decoding = try CaptureDecoding(sharedCapture: "multireport.btsnoop")
        #expect(decoding.statistics.advertisingEvents == 32)
        // Events with Num_Reports = 2: the raw byte after the subevent code.
        let twoReportEvents = decoding.packets.filter {
            $0.type == .event && $0.bytes.count > 3 && $0.bytes[0] == 0x3E && $0.bytes[2] == 0x02 && $0.bytes[3] == 2
        }
        #expect(twoReportEvents.count == 27)
        var delivered = 0
        for event in twoReportEvents {
            var reports: [AdvertisingReport] = []
            let outcome = AdvertisingReportDecoder.decode(event: event.bytes) { report, _ in reports.append(report) }
            #expect(outcome == .decoded(reports: 2))
            #expect(reports.count == 2)
            delivered += reports.count
        }
        #expect(delivered == 54)
    }

    @Test func extendedReportsAreAllRead() throws {
        let decoding = try CaptureDecoding(sharedCapture: "extended-reports.btsnoop")
        let extended = decoding.advertisements.filter { $0.report.kind == .extended }
        #expect(extended.count == 79)
        for advertisement in extended {
            #expect(advertisement.report.primaryPHY != nil)
            #expect(advertisement.report.eventType.dataStatus == .complete)
            // Check the report's data length against the raw bytes: the AD parses without error.
            #expect(advertisement.dataError == nil)
        }
        // Event types in this capture: 0x13 (connectable, scannable, legacy) and 0x1B (… scan response).
        #expect(Set(extended.map(\.report.eventType.rawValue)) == [0x13, 0x1B])
        #expect(extended.filter { $0.report.eventType.isLegacyPDU }.count == 79)
        #expect(extended.filter { $0.report.isScanResponse }.count == extended.filter { $0.report.eventType.rawValue == 0x1B }.count)

        // Cross-check against the raw bytes of each one-report event, read by hand here:
        // 3E len 0D 01 | type(2) addrType(1) addr(6) phy1 phy2 sid tx rssi interval(2) dType dAddr(6) len data.
        let rawEvents = decoding.packets.filter { $0.type == .event && $0.bytes.count > 3 && $0.bytes[0] == 0x3E && $0.bytes[2] == 0x0D }
        #expect(rawEvents.count == 79)
        for (raw, advertisement) in zip(rawEvents, extended) {
            let b = raw.bytes
            #expect(b[3] == 1)
            let address = (7...12).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(b[$1]) }
            #expect(advertisement.report.address.rawValue == address)
            #expect(advertisement.report.addressType.rawValue == b[6])
            #expect(advertisement.report.eventType.rawValue == UInt16(b[4]) | UInt16(b[5]) << 8)
            #expect(advertisement.report.rssi == (b[17] == 0x7F ? nil : Int8(bitPattern: b[17])))
            #expect(advertisement.report.txPower == (b[16] == 0x7F ? nil : Int8(bitPattern: b[16])))
            #expect(advertisement.data == Array(b[28..<(28 + Int(b[27]))]))
            #expect(28 + Int(b[27]) == b.count)
        }
    }

    @Test func connectionCaptureHasTwentyNineReportsAmongGATTTraffic() throws {
        let decoding = try CaptureDecoding(sharedCapture: "connection-gatt.btsnoop")
        #expect(decoding.packets.filter { $0.type == .aclData }.count == 8)
    }

    @Test func timestampsAreMicrosecondsSince1970() throws {
        let decoding = try CaptureDecoding(sharedCapture: "horizon74-ibeacon.btsnoop")
        let first = try #require(decoding.beacons.first?.timestampMicroseconds)
        // 2021-02-01T03:27:59.789Z, the time the capture's first iBeacon was recorded.
        let date = Date(timeIntervalSince1970: Double(first) / 1_000_000)
        let components = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        #expect(components.year == 2021)
        #expect(components.month == 2)
        #expect(components.day == 1)
        let times = decoding.packets.compactMap(\.timestampMicroseconds)
        #expect(times.count == decoding.packets.count)
    }
}
