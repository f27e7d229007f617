/// Turns HCI packets (from a capture or a live adapter) into advertisements with their beacons,
/// and counts everything: packets, events, reports, beacons by format, malformed events and data.
///
/// The whole path allocates nothing (except for Eddystone-URL strings) and never traps.
///
/// ```swift
/// var decoder = AdvertisementDecoder()
/// while let record = try reader.next() {
///     decoder.decode(record) { advertisement in
///         if let beacon = advertisement.beacon { … }
///     }
/// }
/// print(decoder.statistics)
/// ```
public struct AdvertisementDecoder: Sendable {
    /// What has been decoded so far.
    public private(set) var statistics = DecodeStatistics()
    /// The first ``maximumIssues`` problems, as text naming the packet and field.
    public private(set) var issues: [String] = []
    /// How many issues ``issues`` keeps (all are counted in ``statistics``).
    public static let maximumIssues = 100

    public init() {}

    /// Decodes one capture record.
    public mutating func decode(_ record: CaptureRecord, _ body: (Advertisement) -> Void) {
        decode(
            type: record.packetType, packet: record.packet, timestampMicroseconds: record.timestampMicroseconds, context: record.number,
            body)
    }

    /// Decodes one packet with the H4 type byte first (as a raw HCI socket or a UART delivers it).
    public mutating func decode(h4Packet: UnsafeRawBufferPointer, timestampMicroseconds: Int64?, _ body: (Advertisement) -> Void) {
        guard h4Packet.count >= 1, let type = HCIPacketType(rawValue: h4Packet[0]) else {
            statistics.packets += 1
            statistics.malformedEvents += 1
            note(0, h4Packet.isEmpty ? "empty HCI packet" : "unknown H4 packet type 0x\(hex(h4Packet[0]))")
            return
        }
        decode(
            type: type, packet: UnsafeRawBufferPointer(rebasing: h4Packet[1...]), timestampMicroseconds: timestampMicroseconds, context: 0,
            body)
    }

    /// Decodes one HCI packet of `type` (without its H4 byte). Only events can carry
    /// advertisements; commands and data are counted and skipped.
    public mutating func decode(
        type: HCIPacketType, packet: UnsafeRawBufferPointer, timestampMicroseconds: Int64?, context: Int = 0,
        _ body: (Advertisement) -> Void
    ) {
        statistics.packets += 1
        guard type == .event else { return }
        statistics.events += 1
        var firstDataError: (report: Int, error: AdvertisingDataError)?
        var reportIndex = 0
        let outcome = AdvertisingReportDecoder.decode(event: packet) { report, data in
            reportIndex += 1
            var decoding = data.decodeBeacon()
            // A fragment of extended advertising data (data status "incomplete") may end inside
            // an AD structure: that is the fragmenting, not damage.
            if case .structureOverrun? = decoding.error, report.kind == .extended, report.eventType.dataStatus != .complete {
                decoding.error = nil
            }
            if let error = decoding.error {
                statistics.malformedAdvertisingData += 1
                if firstDataError == nil { firstDataError = (reportIndex, error) }
            }
            if let beacon = decoding.beacon { statistics.beacons[beacon.format] += 1 }
            body(
                Advertisement(
                    timestampMicroseconds: timestampMicroseconds, report: report, data: data, beacon: decoding.beacon,
                    dataError: decoding.error))
        }
        if let firstDataError {
            note(context, "advertising report \(firstDataError.report): \(firstDataError.error)")
        }
        switch outcome {
        case .notAdvertising:
            return
        case .decoded(let reports):
            statistics.advertisingEvents += 1
            if packet.count >= 3, packet[2] == AdvertisingReportDecoder.extendedSubeventCode {
                statistics.extendedReports += reports
            } else {
                statistics.legacyReports += reports
            }
        case .malformed(let error, let delivered):
            statistics.malformedEvents += 1
            if packet.count >= 3, packet[0] == AdvertisingReportDecoder.leMetaEventCode,
                packet[2] == AdvertisingReportDecoder.legacySubeventCode || packet[2] == AdvertisingReportDecoder.extendedSubeventCode
            {
                statistics.advertisingEvents += 1
                if packet[2] == AdvertisingReportDecoder.extendedSubeventCode {
                    statistics.extendedReports += delivered
                } else {
                    statistics.legacyReports += delivered
                }
            }
            note(context, error.description)
        }
    }

    private mutating func note(_ record: Int, _ message: String) {
        guard issues.count < Self.maximumIssues else { return }
        issues.append(record > 0 ? "record \(record): \(message)" : message)
    }
}
