import BeaconKit
import Foundation
import TestSupport
import Testing
import Topology

/// Random, truncated and corrupted input never traps, and every malformed thing is counted.
struct RobustnessTests {
    /// A synthetic capture: legacy and extended events with every beacon format, plus commands.
    static func syntheticCapture(_ container: CaptureWriter.Container = .btsnoop(datalink: 1002)) -> (bytes: [UInt8], events: Int) {
        var writer = CaptureWriter(container)
        let samples = BeaconSamples.all
        var events = 0
        for (index, beacon) in samples.enumerated() {
            let report = AdvertisingReport(
                kind: .legacy, eventType: AdvertisingEventType(rawValue: 3),
                address: BluetoothAddress(rawValue: 0xC0FF_EE00_0000 + UInt64(index)),
                addressType: .random, rssi: Int8(-40 - index))
            let data = AdvertisingReportEncoder.advertisingData(for: beacon)!
            writer.append(
                .event, AdvertisingReportEncoder.legacyEvent([(report, data), (report, data)]),
                timestampMicroseconds: 1_000_000 * Int64(index))
            var extended = report
            extended.kind = .extended
            extended.eventType = AdvertisingEventType(rawValue: 0x13)
            writer.append(
                .event, AdvertisingReportEncoder.extendedEvent([(extended, data)]), timestampMicroseconds: 1_000_000 * Int64(index) + 1)
            writer.append(.command, [0x4F, 0xFD, UInt8(data.count)] + data, timestampMicroseconds: 1_000_000 * Int64(index) + 2)
            events += 2
        }
        return (writer.bytes, events)
    }

    @Test func syntheticCaptureDecodesCompletely() throws {
        let (bytes, events) = Self.syntheticCapture()
        let decoding = try CaptureDecoding(bytes: bytes)
        #expect(decoding.statistics.advertisingEvents == events)
        #expect(decoding.statistics.legacyReports == 2 * BeaconSamples.all.count)
        #expect(decoding.statistics.extendedReports == BeaconSamples.all.count)
        #expect(decoding.statistics.beacons.total == 3 * BeaconSamples.all.count)
        #expect(decoding.beacons.map(\.beacon) == BeaconSamples.all.flatMap { [$0, $0, $0] })
        #expect(decoding.statistics.malformed == 0)
    }

    /// Cutting a capture anywhere inside a record: exactly one malformed record, all records before
    /// the cut intact; cutting between records: nothing malformed.
    @Test(arguments: [
        CaptureWriter.Container.btsnoop(datalink: 1002), .btsnoop(datalink: 2001), .pcap(linkType: 201), .pcapng(linkType: 187),
    ])
    func truncatedCapturesCountOneMalformedRecord(container: CaptureWriter.Container) throws {
        var writer = CaptureWriter(container)
        let isPcapng = container == .pcapng(linkType: 187)
        // pcapng: the section header block (28 bytes) must be whole for the format to be detected;
        // the interface block after it is cut like any other block.
        let firstCut = isPcapng ? 28 : writer.bytes.count
        var blockEnds: [Int] = isPcapng ? [28, writer.bytes.count] : [writer.bytes.count]
        var packetEnds: [Int] = []
        let event = AdvertisingReportEncoder.legacyEvent([
            (
                AdvertisingReport(
                    kind: .legacy, eventType: .init(rawValue: 0), address: .init(rawValue: 1), addressType: .public, rssi: -50),
                AdvertisingReportEncoder.advertisingData(for: BeaconSamples.all[0])!
            )
        ])
        for i in 0..<5 {
            writer.append(.event, event, timestampMicroseconds: Int64(i))
            packetEnds.append(writer.bytes.count)
        }
        blockEnds += packetEnds
        let full = writer.bytes
        for cut in firstCut...full.count {
            let reader: CaptureReader
            do {
                reader = try CaptureReader(bytes: Array(full[0..<cut]))
            } catch {
                Issue.record("cut at \(cut): \(error)")
                continue
            }
            let decoding = try CaptureDecoding(reader)
            let complete = packetEnds.filter { $0 <= cut }.count
            let insideRecord = !blockEnds.contains(cut) && cut > firstCut
            #expect(decoding.capture.records == complete, "cut at \(cut)")
            #expect(decoding.capture.malformedRecords == (insideRecord ? 1 : 0), "cut at \(cut)")
            #expect(decoding.statistics.beacons.iBeacon == complete, "cut at \(cut)")
            #expect(reader.issues.count == decoding.capture.malformedRecords)
        }
    }

    /// Every strict prefix of a valid advertising event is malformed, and counted once.
    @Test func everyTruncatedEventIsCountedMalformed() {
        let report = AdvertisingReport(
            kind: .legacy, eventType: .init(rawValue: 0), address: .init(rawValue: 7), addressType: .public, rssi: -60)
        let data = AdvertisingReportEncoder.advertisingData(for: BeaconSamples.all[1])!
        for event in [
            AdvertisingReportEncoder.legacyEvent([(report, data), (report, data)]),
            AdvertisingReportEncoder.extendedEvent([(report, data)]),
        ] {
            for cut in 0..<event.count {
                var prefix = Array(event[0..<cut])
                // Keep the header's length consistent with the cut, so the damage is in the reports.
                if cut >= 2 { prefix[1] = UInt8(cut - 2) }
                var decoder = AdvertisementDecoder()
                prefix.withUnsafeBytes { decoder.decode(type: .event, packet: $0, timestampMicroseconds: nil) { _ in } }
                #expect(decoder.statistics.malformedEvents == 1, "cut at \(cut) of \(event.count)")
                #expect(decoder.issues.count == 1)
            }
            // And with the original length byte (parameters shorter than declared).
            for cut in 2..<event.count {
                var decoder = AdvertisementDecoder()
                Array(event[0..<cut]).withUnsafeBytes { decoder.decode(type: .event, packet: $0, timestampMicroseconds: nil) { _ in } }
                #expect(decoder.statistics.malformedEvents == 1)
            }
        }
    }

    @Test func randomBytesNeverTrap() throws {
        var generator = SplitMix64(seed: 0xBEAC0)
        for length in 0..<600 {
            let bytes = (0..<(length % 300)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var decoder = AdvertisementDecoder()
            var delivered = 0
            bytes.withUnsafeBytes { buffer in
                decoder.decode(h4Packet: buffer, timestampMicroseconds: nil) { _ in delivered += 1 }
                _ = AdvertisingData(bytes: buffer).parse()
            }
            #expect(delivered == decoder.statistics.advertisingReports)
            // As a capture: most are rejected at the header; those that are not must not trap.
            if let reader = try? CaptureReader(bytes: bytes) {
                _ = try CaptureDecoding(reader)
            }
        }
    }

    @Test func randomAdvertisingEventsNeverTrapAndCountConsistently() {
        var generator = SplitMix64(seed: 42)
        var malformedSeen = 0
        for _ in 0..<3000 {
            // A plausible header (LE meta, advertising subevent) over random parameters.
            let subevent: UInt8 = Bool.random(using: &generator) ? 0x02 : 0x0D
            let parameters = (0..<Int.random(in: 0...60, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let event: [UInt8] = [0x3E, UInt8(parameters.count + 1), subevent] + parameters
            var decoder = AdvertisementDecoder()
            var delivered = 0
            event.withUnsafeBytes { decoder.decode(type: .event, packet: $0, timestampMicroseconds: nil) { _ in delivered += 1 } }
            #expect(decoder.statistics.advertisingEvents == 1)
            #expect(delivered == decoder.statistics.advertisingReports)
            malformedSeen += decoder.statistics.malformedEvents
        }
        #expect(malformedSeen > 0, "random parameters should produce malformed events")
    }

    /// Flipping random bytes of a whole capture: no trap, and the reader's counters always add up.
    @Test func corruptedCapturesNeverTrap() throws {
        var generator = SplitMix64(seed: 7)
        for container in [CaptureWriter.Container.btsnoop(datalink: 1002), .pcap(linkType: 201), .pcapng(linkType: 201, bigEndian: true)] {
            let (original, _) = Self.syntheticCapture(container)
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    // Leave the file header so that the records are what gets damaged.
                    let index = Int.random(in: 28..<bytes.count, using: &generator)
                    bytes[index] = UInt8.random(in: 0...255, using: &generator)
                }
                guard let reader = try? CaptureReader(bytes: bytes) else { continue }
                let decoding = try CaptureDecoding(reader)
                #expect(decoding.capture.bytesRead <= UInt64(bytes.count))
                #expect(decoding.advertisements.count == decoding.statistics.advertisingReports)
                #expect(reader.issues.count == min(decoding.capture.malformedRecords, CaptureReader.maximumIssues))
            }
        }
    }

    /// An impossible record length ends the capture with one malformed record, and a message naming it.
    @Test func impossibleRecordLengthStopsReadingWithAMessage() throws {
        var (bytes, _) = Self.syntheticCapture(.btsnoop(datalink: 1002))
        bytes[16] = 0x7F  // first record's original length
        bytes[20] = 0x7F  // and its included length: 2 GB
        let reader = try CaptureReader(bytes: bytes, name: "big.btsnoop")
        let decoding = try CaptureDecoding(reader)
        #expect(decoding.capture.records == 0)
        #expect(decoding.capture.malformedRecords == 1)
        let issue = try #require(reader.issues.first)
        #expect(issue.description.contains("big.btsnoop: record 1 at byte 16"))
        #expect(issue.description.contains("included length"))
    }

    /// The committed fuzzing seeds (and any crash inputs added to Fuzz/corpus) go through every decoder.
    @Test func fuzzCorpusInputsDecodeWithoutTrapping() throws {
        let corpus = SharedData.packageRoot.appendingPathComponent("Fuzz/corpus")
        let files = try FileManager.default.contentsOfDirectory(at: corpus, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: file))
            var decoder = AdvertisementDecoder()
            bytes.withUnsafeBytes { buffer in
                decoder.decode(h4Packet: buffer, timestampMicroseconds: nil) { _ = $0.data.parse() }
                _ = AdvertisingData(bytes: buffer).parse()
            }
            if let reader = try? CaptureReader(bytes: bytes) {
                let decoding = try CaptureDecoding(reader)
                if file.lastPathComponent.hasPrefix("capture-") {
                    #expect(decoding.capture.malformedRecords == 0, "\(file.lastPathComponent)")
                    #expect(decoding.statistics.advertisingReports > 0, "\(file.lastPathComponent)")
                }
            }
        }
    }
}
