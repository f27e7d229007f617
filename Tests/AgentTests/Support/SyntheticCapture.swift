import Foundation
import Topology

/// A btsnoop capture (datalink 1002, H4) of iBeacon advertisements, generated for tests and
/// benchmarks, with the exact number of frames each beacon sent.
///
/// Every record is an LE Advertising Report event (0x3E/0x02) with one report: Flags, then the
/// iBeacon manufacturer data `4C 00 02 15` + UUID + major + minor + measured power. A few HCI
/// command records carrying the same bytes (a vendor scan filter) are mixed in: they are not
/// advertisements and must not be counted.
struct SyntheticCapture {
    struct SightedBeacon: Hashable, CustomStringConvertible {
        var uuid: String
        var major: UInt16
        var minor: UInt16
        var address: String
        var description: String { "\(uuid) \(major)/\(minor) \(address)" }
    }

    static let uuid = "B9407F30-F5F8-466E-AFF9-25556B57FE6D"

    /// Frames each beacon sent.
    var expected: [SightedBeacon: Int] = [:]
    /// The first and last record times, microseconds since 1970.
    var firstTime: Int64 = 0
    var lastTime: Int64 = 0
    var bytes: [UInt8] = []

    /// `beacons` beacons, each advertising every `interval` (± jitter), for `duration` seconds.
    init(beacons: Int, duration: Double, interval: Double = 0.1, start: Int64 = 1_795_000_000_000_000, seed: UInt64 = 42) {
        var random = SplitMix64(seed: seed)
        var events: [(time: Int64, beacon: Int, rssi: Int8)] = []
        for beacon in 0..<beacons {
            var time = Double(random.next() % 100_000) / 1_000_000
            while time < duration {
                events.append((start + Int64(time * 1_000_000), beacon, Int8(-50 - Int(random.next() % 45))))
                time += interval * (0.9 + Double(random.next() % 200) / 1000)
            }
        }
        events.sort { ($0.time, $0.beacon) < ($1.time, $1.beacon) }
        firstTime = events.first?.time ?? start
        lastTime = events.last?.time ?? start

        bytes = Array("btsnoop".utf8) + [0]
        Self.put32(1, &bytes)
        Self.put32(1002, &bytes)
        let uuidBytes = Self.uuidBytes(Self.uuid)
        for (index, event) in events.enumerated() {
            let major = UInt16(100 + event.beacon / 50)
            let minor = UInt16(event.beacon % 50)
            let address: [UInt8] = [0xC0, 0xFF, 0xEE, 0x00, UInt8(event.beacon >> 8), UInt8(event.beacon & 0xFF)]
            let key = SightedBeacon(
                uuid: Self.uuid, major: major, minor: minor, address: address.map { String(format: "%02X", $0) }.joined(separator: ":"))
            expected[key, default: 0] += 1

            var data: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
            data += uuidBytes
            data += [UInt8(major >> 8), UInt8(major & 0xFF), UInt8(minor >> 8), UInt8(minor & 0xFF), 0xC5]  // -59 dBm at 1 m
            var report: [UInt8] = [0x03, 0x00] + address.reversed()  // ADV_NONCONN_IND, public address, little-endian
            report.append(UInt8(data.count))
            report += data
            report.append(UInt8(bitPattern: event.rssi))
            let parameters: [UInt8] = [0x02, 0x01] + report
            Self.record(&bytes, time: event.time, flags: 3, packet: [0x04, 0x3E, UInt8(parameters.count)] + parameters)

            if index % 500 == 0 {
                // An HCI command that contains iBeacon bytes (LE vendor filter): not an advertisement.
                let command: [UInt8] = [0x01, 0x57, 0xFD, UInt8(data.count)] + data
                Self.record(&bytes, time: event.time, flags: 2, packet: command)
            }
        }
    }

    /// Total frames.
    var frames: Int { expected.values.reduce(0, +) }

    /// Writes the capture to a new temporary file and returns its path.
    func write(named name: String = "synthetic") throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString).btsnoop").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private static func record(_ bytes: inout [UInt8], time: Int64, flags: UInt32, packet: [UInt8]) {
        put32(UInt32(packet.count), &bytes)
        put32(UInt32(packet.count), &bytes)
        put32(flags, &bytes)
        put32(0, &bytes)
        let btsnoopTime = UInt64(bitPattern: time) &+ 0x00dc_ddb3_0f2f_8000
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: btsnoopTime >> UInt64(shift))) }
        bytes += packet
    }

    private static func put32(_ value: UInt32, _ bytes: inout [UInt8]) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func uuidBytes(_ text: String) -> [UInt8] {
        let hex = Array(text.replacingOccurrences(of: "-", with: "").utf8)
        return stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
    }
}
