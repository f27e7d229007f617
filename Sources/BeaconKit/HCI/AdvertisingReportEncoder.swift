/// Builds HCI advertising report events: the inverse of ``AdvertisingReportDecoder``, for tests,
/// benchmarks and synthetic captures.
public enum AdvertisingReportEncoder {
    /// An LE Advertising Report event (0x3E/0x02, without the H4 byte) carrying `reports`.
    /// Legacy reports use ``AdvertisingReport/eventType``, address, address type and RSSI
    /// (`nil` is written as 0x7F). At most 25 reports, and the event's parameters must fit 255 bytes.
    public static func legacyEvent(_ reports: [(report: AdvertisingReport, data: [UInt8])]) -> [UInt8] {
        var parameters: [UInt8] = [AdvertisingReportDecoder.legacySubeventCode, UInt8(truncatingIfNeeded: reports.count)]
        for (report, data) in reports {
            parameters.append(UInt8(truncatingIfNeeded: report.eventType.rawValue))
            parameters.append(report.addressType.rawValue)
            parameters += report.address.littleEndianBytes
            parameters.append(UInt8(truncatingIfNeeded: data.count))
            parameters += data
            parameters.append(UInt8(bitPattern: report.rssi ?? 0x7F))
        }
        return [AdvertisingReportDecoder.leMetaEventCode, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }

    /// An LE Extended Advertising Report event (0x3E/0x0D, without the H4 byte) carrying `reports`.
    public static func extendedEvent(_ reports: [(report: AdvertisingReport, data: [UInt8])]) -> [UInt8] {
        var parameters: [UInt8] = [AdvertisingReportDecoder.extendedSubeventCode, UInt8(truncatingIfNeeded: reports.count)]
        for (report, data) in reports {
            parameters.append(UInt8(truncatingIfNeeded: report.eventType.rawValue))
            parameters.append(UInt8(truncatingIfNeeded: report.eventType.rawValue >> 8))
            parameters.append(report.addressType.rawValue)
            parameters += report.address.littleEndianBytes
            parameters.append(report.primaryPHY?.rawValue ?? PHY.le1M.rawValue)
            parameters.append(report.secondaryPHY?.rawValue ?? 0)
            parameters.append(report.advertisingSID ?? 0xFF)
            parameters.append(UInt8(bitPattern: report.txPower ?? 0x7F))
            parameters.append(UInt8(bitPattern: report.rssi ?? 0x7F))
            parameters.append(UInt8(truncatingIfNeeded: report.periodicAdvertisingInterval))
            parameters.append(UInt8(truncatingIfNeeded: report.periodicAdvertisingInterval >> 8))
            parameters.append(report.directAddressType?.rawValue ?? 0)
            parameters += (report.directAddress ?? BluetoothAddress(rawValue: 0)).littleEndianBytes
            parameters.append(UInt8(truncatingIfNeeded: data.count))
            parameters += data
        }
        return [AdvertisingReportDecoder.leMetaEventCode, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }

    /// Advertising data for `beacon`: Flags (LE General Discoverable, no BR/EDR) and the beacon's
    /// manufacturer data or Eddystone service data. `nil` for ``Beacon/eddystoneUnknown(frameType:)``
    /// and URLs that cannot be encoded.
    public static func advertisingData(for beacon: Beacon) -> [UInt8]? {
        var data: [UInt8] = [0x02, 0x01, 0x06]
        func structure(_ type: ADType, _ value: [UInt8]) {
            data.append(UInt8(truncatingIfNeeded: value.count + 1))
            data.append(type.rawValue)
            data += value
        }
        switch beacon {
        case .iBeacon(let b):
            structure(.manufacturerData, b.manufacturerData)
        case .altBeacon(let b):
            structure(.manufacturerData, b.manufacturerData)
        case .eddystoneUID(let b):
            data += [0x03, 0x03, 0xAA, 0xFE]
            structure(
                .serviceData16,
                [0xAA, 0xFE, Eddystone.uidFrameType, UInt8(bitPattern: b.txPower)] + b.namespace.bytes + b.instance.bytes + [0, 0])
        case .eddystoneURL(let b):
            guard let encoded = encodeURL(b.url) else { return nil }
            data += [0x03, 0x03, 0xAA, 0xFE]
            structure(.serviceData16, [0xAA, 0xFE, Eddystone.urlFrameType, UInt8(bitPattern: b.txPower)] + encoded)
        case .eddystoneTLM(let b):
            let battery = b.batteryMillivolts ?? 0
            let temperature = UInt16(bitPattern: b.rawTemperature)
            data += [0x03, 0x03, 0xAA, 0xFE]
            structure(
                .serviceData16,
                [
                    0xAA, 0xFE, Eddystone.tlmFrameType, 0x00,
                    UInt8(battery >> 8), UInt8(battery & 0xFF), UInt8(temperature >> 8), UInt8(temperature & 0xFF),
                ]
                    + bigEndian(b.advertisingCount) + bigEndian(b.uptimeTenths))
        case .eddystoneUnknown:
            return nil
        }
        return data
    }

    /// The scheme byte and compressed bytes of `url`; `nil` without a known scheme or with
    /// characters Eddystone-URL cannot carry.
    public static func encodeURL(_ url: String) -> [UInt8]? {
        // Longest scheme first, so that "http://www." wins over "http://".
        let schemes = Eddystone.urlSchemes.enumerated().sorted { $0.element.count > $1.element.count }
        guard let scheme = schemes.first(where: { url.hasPrefix($0.element) }) else { return nil }
        var rest = Substring(url.dropFirst(scheme.element.count))
        var out: [UInt8] = [UInt8(scheme.offset)]
        // Longer expansions first (".com/" before ".com").
        let expansions = Eddystone.urlExpansions.enumerated().sorted { $0.element.count > $1.element.count }
        while !rest.isEmpty {
            if let expansion = expansions.first(where: { rest.hasPrefix($0.element) }) {
                out.append(UInt8(expansion.offset))
                rest = rest.dropFirst(expansion.element.count)
            } else {
                guard let byte = rest.utf8.first, byte > 0x20, byte < 0x7F else { return nil }
                out.append(byte)
                rest = rest.dropFirst()
            }
        }
        return out
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
