import BeaconKit
import Foundation
import TestSupport
import Testing

/// The shared captures are all btsnoop 1002. Re-writing their HCI packets into every other
/// container the reader supports must give identical decodes.
@Suite(.requiresSharedData)
struct ContainerTests {
    static let captures = ["horizon74-ibeacon.btsnoop", "multireport.btsnoop", "extended-reports.btsnoop", "connection-gatt.btsnoop"]

    static let containers: [CaptureWriter.Container] = [
        .btsnoop(datalink: 1001), .btsnoop(datalink: 1002), .btsnoop(datalink: 2001),
        .pcap(linkType: 187), .pcap(linkType: 187, bigEndian: true),
        .pcap(linkType: 201), .pcap(linkType: 201, bigEndian: true, nanosecondTimestamps: true),
        .pcapng(linkType: 187), .pcapng(linkType: 201), .pcapng(linkType: 201, bigEndian: true),
    ]

    @Test(arguments: captures)
    func everyContainerDecodesIdentically(capture: String) throws {
        let original = try CaptureDecoding(sharedCapture: capture)
        for container in Self.containers {
            var writer = CaptureWriter(container)
            for packet in original.packets {
                writer.append(
                    packet.type, packet.bytes, direction: packet.direction, timestampMicroseconds: packet.timestampMicroseconds ?? 0)
            }
            let rewritten = try CaptureDecoding(bytes: writer.bytes)
            // The same through a tiny buffer: records straddle refills all the time.
            let streamed = try CaptureDecoding(CaptureReader(bytes: writer.bytes, bufferSize: 64))
            #expect(streamed == rewritten, "\(capture) as \(container) through a 64-byte buffer")
            #expect(rewritten.advertisements == original.advertisements, "\(capture) as \(container)")
            #expect(rewritten.statistics == original.statistics, "\(capture) as \(container)")
            #expect(rewritten.capture.records == original.capture.records, "\(capture) as \(container)")
            #expect(rewritten.capture.malformedRecords == 0, "\(capture) as \(container)")
            #expect(rewritten.packets.map(\.bytes) == original.packets.map(\.bytes), "\(capture) as \(container)")
            #expect(rewritten.packets.map(\.type) == original.packets.map(\.type), "\(capture) as \(container)")
            // Link type 187 (H4 without a direction header) cannot say which way a packet went.
            let carriesDirection =
                container != .pcap(linkType: 187) && container != .pcap(linkType: 187, bigEndian: true)
                && container != .pcapng(linkType: 187)
            let directions = rewritten.packets.map(\.direction)
            #expect(
                directions == (carriesDirection ? original.packets.map(\.direction) : directions.map { _ in nil }),
                "\(capture) as \(container)")
        }
    }

    @Test func formatsAreDetectedFromTheHeader() throws {
        for container in Self.containers {
            var writer = CaptureWriter(container)
            writer.append(.event, [0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00], timestampMicroseconds: 1_700_000_000_000_000)
            let reader = try CaptureReader(bytes: writer.bytes)
            switch (container, reader.format) {
            case (.btsnoop(let a), .btsnoop(let b)): #expect(a == b)
            case (.pcap(let a, let be, let ns), .pcap(let b, let nsRead, let beRead)):
                #expect(a == b)
                #expect(be == beRead)
                #expect(ns == nsRead)
            case (.pcapng, .pcapng): break
            default: Issue.record("\(container) detected as \(reader.format)")
            }
            let record = try #require(try reader.next())
            #expect(record.timestampMicroseconds == 1_700_000_000_000_000)
            #expect(record.packetType == .event)
            #expect(Array(record.h4Packet) == [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00])
            #expect(try reader.next() == nil)
        }
    }

    @Test func pcapngSkipsOtherInterfacesAndHonoursTimestampResolution() throws {
        // One section: interface 0 is Ethernet (link type 1), interface 1 is H4 with nanosecond
        // resolution (if_tsresol = 9). A packet on each.
        var bytes: [UInt8] = []
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        func put16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        put32(0x0A0D_0D0A)
        put32(28)
        put32(0x1A2B_3C4D)
        put16(1)
        put16(0)
        put32(0xFFFF_FFFF)
        put32(0xFFFF_FFFF)
        put32(28)
        put32(1)
        put32(20)
        put16(1)
        put16(0)
        put32(0)
        put32(20)
        put32(1)
        put32(28)
        put16(187)
        put16(0)
        put32(0)
        put16(9)
        put16(1)
        bytes += [9, 0, 0, 0]
        put32(28)
        let event: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x0C, 0x20, 0x00]  // 7 bytes, padded to 8
        let nanoseconds: UInt64 = 1_700_000_000_123_456_789
        for interface: UInt32 in [0, 1] {
            put32(6)
            put32(40)
            put32(interface)
            put32(UInt32(nanoseconds >> 32))
            put32(UInt32(nanoseconds & 0xFFFF_FFFF))
            put32(7)
            put32(7)
            bytes += event + [0]
            put32(40)
        }
        let reader = try CaptureReader(bytes: bytes)
        let record = try #require(try reader.next())
        #expect(record.timestampMicroseconds == 1_700_000_000_123_456)
        #expect(Array(record.h4Packet) == event)
        #expect(try reader.next() == nil)
        #expect(reader.statistics.records == 1)
        #expect(reader.statistics.skippedRecords == 1)
        #expect(reader.statistics.malformedRecords == 0)
    }

    @Test func monitorRecordsThatAreNotHCIPacketsAreSkipped() throws {
        // btsnoop 2001 with a system note (opcode 12) between two events.
        var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x07, 0xD1]
        func record(_ flags: UInt32, _ data: [UInt8]) {
            for v in [UInt32(data.count), UInt32(data.count), flags, 0, 0x00E0_0000, 0] { withUnsafeBytes(of: v.bigEndian) { bytes += $0 } }
            bytes += data
        }
        record(3, [0x0E, 0x01, 0x01])
        record(12, Array("note".utf8) + [0])
        record(0x0001_0003, [0x0E, 0x01, 0x02])  // controller index 1
        let reader = try CaptureReader(bytes: bytes)
        #expect(reader.format == .btsnoop(datalink: 2001))
        var packets: [[UInt8]] = []
        while let record = try reader.next() { packets.append(Array(record.h4Packet)) }
        #expect(packets == [[0x04, 0x0E, 0x01, 0x01], [0x04, 0x0E, 0x01, 0x02]])
        #expect(reader.statistics.skippedRecords == 1)
    }

    @Test func unknownFormatsAndMissingFilesAreErrorsThatNameTheFile() throws {
        #expect(throws: CaptureError.unknownFormat(file: "x.bin", firstBytes: Array("hello world!".utf8))) {
            try CaptureReader(bytes: Array("hello world!".utf8), name: "x.bin")
        }
        #expect(throws: CaptureError.unknownFormat(file: "empty", firstBytes: [])) {
            try CaptureReader(bytes: [], name: "empty")
        }
        var ethernet = CaptureWriter(.pcap(linkType: 187)).bytes
        ethernet[20] = 1
        #expect(throws: CaptureError.unsupportedLinkType(file: "eth.pcap", linkType: 1)) {
            try CaptureReader(bytes: ethernet, name: "eth.pcap")
        }
        var snoop = CaptureWriter(.btsnoop(datalink: 1002)).bytes
        snoop[15] = 0xEB  // 1003
        #expect(throws: CaptureError.unsupportedDatalink(file: "s", datalink: 1003)) {
            try CaptureReader(bytes: snoop, name: "s")
        }
        let path = "/nonexistent/\(UUID().uuidString).btsnoop"
        do {
            _ = try CaptureReader(path: path)
            Issue.record("opening a missing file succeeded")
        } catch {
            #expect(error.description.contains(path))
            #expect(error.description.contains("No such file"))
        }
        let message = CaptureError.unknownFormat(file: "x.bin", firstBytes: [0x68, 0x65]).description
        #expect(message.contains("x.bin") && message.contains("expected btsnoop"))
    }

    @Test func readerStreamsThroughASmallBuffer() throws {
        // A file far larger than the buffer, read from disk: every record arrives intact.
        let original = try CaptureDecoding(sharedCapture: "horizon74-ibeacon.btsnoop")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("beaconkit-stream-\(UUID().uuidString).btsnoop")
        defer { try? FileManager.default.removeItem(at: url) }
        var writer = CaptureWriter(.btsnoop(datalink: 1002))
        for _ in 0..<4 {
            for packet in original.packets {
                writer.append(
                    packet.type, packet.bytes, direction: packet.direction, timestampMicroseconds: packet.timestampMicroseconds ?? 0)
            }
        }
        try Data(writer.bytes).write(to: url)
        let streamed = try CaptureDecoding(CaptureReader(path: url.path, bufferSize: 4096))
        #expect(streamed.capture.records == 4 * original.capture.records)
        #expect(streamed.statistics.beacons.iBeacon == 44)
        #expect(streamed.advertisements == Array((0..<4).map { _ in original.advertisements }.joined()))
        #expect(streamed.capture.bytesRead == UInt64(writer.bytes.count))
    }
}
