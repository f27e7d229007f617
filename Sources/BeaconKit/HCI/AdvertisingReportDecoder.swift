/// Decodes the advertising reports of one HCI event, without copying or allocating.
///
/// Only LE Advertising Report (0x3E/0x02) and LE Extended Advertising Report (0x3E/0x0D) events
/// carry advertisements; every other event is ``AdvertisingEventOutcome/notAdvertising``, and
/// commands or data packets never reach this decoder at all (bytes that look like an iBeacon
/// inside a vendor scan-filter command are not an advertisement).
///
/// ```swift
/// let outcome = AdvertisingReportDecoder.decode(event: bytes) { report, data in
///     if case .iBeacon(let beacon)? = data.decodeBeacon().beacon { … }
/// }
/// ```
public enum AdvertisingReportDecoder {
    /// The LE Meta event code.
    public static let leMetaEventCode: UInt8 = 0x3E
    /// The LE Advertising Report subevent code.
    public static let legacySubeventCode: UInt8 = 0x02
    /// The LE Extended Advertising Report subevent code.
    public static let extendedSubeventCode: UInt8 = 0x0D

    /// Decodes `event` (an HCI event packet without the H4 type byte: event code, parameter
    /// length, parameters) and calls `body` once per report, in order.
    ///
    /// The ``AdvertisingData`` passed to `body` points into `event` and is valid only during the
    /// call. Reports decoded before a malformed one are delivered; decoding stops at the first
    /// malformed report and the outcome says why.
    @discardableResult
    public static func decode(
        event: UnsafeRawBufferPointer,
        _ body: (AdvertisingReport, AdvertisingData) -> Void
    ) -> AdvertisingEventOutcome {
        guard event.count >= 2 else {
            return .malformed(.truncatedHeader(bytes: event.count), reportsDelivered: 0)
        }
        let declared = Int(event[1])
        guard event.count - 2 >= declared else {
            return .malformed(.truncatedParameters(declared: declared, available: event.count - 2), reportsDelivered: 0)
        }
        guard event[0] == leMetaEventCode else { return .notAdvertising }
        guard declared >= 1 else { return .malformed(.missingSubevent, reportsDelivered: 0) }
        let subevent = event[2]
        guard subevent == legacySubeventCode || subevent == extendedSubeventCode else { return .notAdvertising }
        // Only the declared parameters count; trailing bytes beyond them are ignored.
        let end = 2 + declared
        guard end >= 4 else {
            return .malformed(
                .truncatedReport(subevent: subevent, report: 1, count: 0, field: "Num_Reports", offset: 3), reportsDelivered: 0)
        }
        let count = Int(event[3])
        guard count > 0 else { return .malformed(.noReports(subevent: subevent), reportsDelivered: 0) }
        var offset = 4
        for index in 0..<count {
            let read = subevent == legacySubeventCode ? readLegacy(event, at: offset, end: end) : readExtended(event, at: offset, end: end)
            switch read {
            case .report(let report, let data, let next):
                body(report, AdvertisingData(bytes: UnsafeRawBufferPointer(rebasing: event[data])))
                offset = next
            case .truncated(let field, let at):
                let error = HCIEventError.truncatedReport(subevent: subevent, report: index + 1, count: count, field: field, offset: at)
                return .malformed(error, reportsDelivered: index)
            }
        }
        return .decoded(reports: count)
    }

    /// Decodes `event` held in an array (tests, tools); the same as the buffer-pointer version.
    @discardableResult
    public static func decode(
        event: [UInt8], _ body: (AdvertisingReport, AdvertisingData) -> Void
    ) -> AdvertisingEventOutcome {
        event.withUnsafeBytes { decode(event: $0, body) }
    }

    /// One report read from an event: the report, where its advertising data lies and where the
    /// next report starts; or the field it is cut short in and the offset where that is.
    private enum ReportRead {
        case report(AdvertisingReport, data: Range<Int>, next: Int)
        case truncated(field: String, at: Int)
    }

    // Legacy report: Event_Type(1) Address_Type(1) Address(6) Data_Length(1) Data(n) RSSI(1),
    // reports one after the other (as every controller sends them, and the captures show).
    @inline(__always)
    private static func readLegacy(_ event: UnsafeRawBufferPointer, at offset: Int, end: Int) -> ReportRead {
        guard offset + 9 <= end else {
            let available = end - offset
            let field = available < 1 ? "Event_Type" : available < 2 ? "Address_Type" : available < 8 ? "Address" : "Data_Length"
            return .truncated(field: field, at: end)
        }
        let dataLength = Int(event[offset + 8])
        let dataStart = offset + 9
        guard dataStart + dataLength + 1 <= end else {
            return dataStart + dataLength <= end ? .truncated(field: "RSSI", at: end) : .truncated(field: "Data", at: dataStart)
        }
        let rawRSSI = Int8(bitPattern: event[dataStart + dataLength])
        let report = AdvertisingReport(
            kind: .legacy,
            eventType: AdvertisingEventType(rawValue: UInt16(event[offset])),
            address: BluetoothAddress(littleEndianBytes: event, at: offset + 2),
            addressType: AddressType(rawValue: event[offset + 1]),
            rssi: rawRSSI == 0x7F ? nil : rawRSSI
        )
        return .report(report, data: dataStart..<(dataStart + dataLength), next: dataStart + dataLength + 1)
    }

    // Extended report: Event_Type(2) Address_Type(1) Address(6) Primary_PHY(1) Secondary_PHY(1)
    // Advertising_SID(1) TX_Power(1) RSSI(1) Periodic_Advertising_Interval(2)
    // Direct_Address_Type(1) Direct_Address(6) Data_Length(1) Data(n).
    @inline(__always)
    private static func readExtended(_ event: UnsafeRawBufferPointer, at offset: Int, end: Int) -> ReportRead {
        guard offset + 24 <= end else { return .truncated(field: extendedField(at: end - offset), at: end) }
        let dataLength = Int(event[offset + 23])
        let dataStart = offset + 24
        guard dataStart + dataLength <= end else { return .truncated(field: "Data", at: dataStart) }
        let rawRSSI = Int8(bitPattern: event[offset + 13])
        let rawTxPower = Int8(bitPattern: event[offset + 12])
        let secondary = event[offset + 10]
        let sid = event[offset + 11]
        let directType = event[offset + 16]
        let directAddress = BluetoothAddress(littleEndianBytes: event, at: offset + 17)
        let report = AdvertisingReport(
            kind: .extended,
            eventType: AdvertisingEventType(rawValue: UInt16(event[offset]) | UInt16(event[offset + 1]) << 8),
            address: BluetoothAddress(littleEndianBytes: event, at: offset + 3),
            addressType: AddressType(rawValue: event[offset + 2]),
            rssi: rawRSSI == 0x7F ? nil : rawRSSI,
            txPower: rawTxPower == 0x7F ? nil : rawTxPower,
            primaryPHY: PHY(rawValue: event[offset + 9]),
            secondaryPHY: secondary == 0 ? nil : PHY(rawValue: secondary),
            advertisingSID: sid == 0xFF ? nil : sid,
            periodicAdvertisingInterval: UInt16(event[offset + 14]) | UInt16(event[offset + 15]) << 8,
            directAddress: directAddress.rawValue == 0 && directType == 0 ? nil : directAddress,
            directAddressType: directAddress.rawValue == 0 && directType == 0 ? nil : AddressType(rawValue: directType)
        )
        return .report(report, data: dataStart..<(dataStart + dataLength), next: dataStart + dataLength)
    }

    /// The name of the extended report field that starts at `available` bytes into a report.
    private static func extendedField(at available: Int) -> String {
        switch available {
        case ..<2: "Event_Type"
        case ..<3: "Address_Type"
        case ..<9: "Address"
        case ..<10: "Primary_PHY"
        case ..<11: "Secondary_PHY"
        case ..<12: "Advertising_SID"
        case ..<13: "TX_Power"
        case ..<14: "RSSI"
        case ..<16: "Periodic_Advertising_Interval"
        case ..<17: "Direct_Address_Type"
        case ..<23: "Direct_Address"
        default: "Data_Length"
        }
    }
}

/// What ``AdvertisingReportDecoder`` made of one HCI event.
public enum AdvertisingEventOutcome: Sendable, Hashable {
    /// Not an advertising report event (any other event or LE subevent).
    case notAdvertising
    /// An advertising report event whose `reports` reports were all decoded.
    case decoded(reports: Int)
    /// An advertising report event that is malformed; the first `reportsDelivered` reports were
    /// decoded and delivered before the error.
    case malformed(HCIEventError, reportsDelivered: Int)

    /// How many reports were delivered.
    public var reportsDelivered: Int {
        switch self {
        case .notAdvertising: 0
        case .decoded(let reports): reports
        case .malformed(_, let delivered): delivered
        }
    }
}
