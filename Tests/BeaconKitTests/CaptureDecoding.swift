import BeaconKit
import Foundation
import TestSupport

/// What decoding a whole capture produced, owned so tests can compare runs.
struct CaptureDecoding: Equatable {
    var format: CaptureFormat
    var advertisements: [DecodedAdvertisement]
    var statistics: DecodeStatistics
    var capture: CaptureStatistics
    /// Every HCI packet read, with its type, direction and time, to re-write in other containers.
    var packets: [RecordedPacket]

    struct RecordedPacket: Equatable {
        var type: HCIPacketType
        var direction: PacketDirection?
        var timestampMicroseconds: Int64?
        var bytes: [UInt8]
    }

    /// Reads and decodes every record of `reader`.
    init(_ reader: CaptureReader) throws {
        var decoder = AdvertisementDecoder()
        var advertisements: [DecodedAdvertisement] = []
        var packets: [RecordedPacket] = []
        while let record = try reader.next() {
            packets.append(
                RecordedPacket(
                    type: record.packetType, direction: record.direction, timestampMicroseconds: record.timestampMicroseconds,
                    bytes: Array(record.packet)))
            decoder.decode(record) { advertisements.append($0.copy()) }
        }
        self.format = reader.format
        self.advertisements = advertisements
        self.statistics = decoder.statistics
        self.capture = reader.statistics
        self.packets = packets
    }

    /// Decodes the shared capture `name` (under `captures/`).
    init(sharedCapture name: String) throws {
        try self.init(CaptureReader(path: SharedData.url("captures/" + name).path))
    }

    /// Decodes a capture held in memory.
    init(bytes: [UInt8]) throws {
        try self.init(CaptureReader(bytes: bytes))
    }

    var beacons: [DecodedAdvertisement] { advertisements.filter { $0.beacon != nil } }
}

extension Array where Element == UInt8 {
    /// Bytes from a hex string (whitespace ignored); traps on bad hex, for test literals only.
    init(hex: String) {
        let digits = hex.filter { !$0.isWhitespace }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            bytes.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        self = bytes
    }
}
