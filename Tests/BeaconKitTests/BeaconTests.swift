import BeaconKit
import Foundation
import Testing
import Topology

/// One beacon of every decodable format, built from the formats' definitions.
enum BeaconSamples {
    static let uuid = BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let all: [Beacon] = [
        .iBeacon(IBeacon(uuid: uuid, major: 1, minor: 65535, measuredPower: -59)),
        .altBeacon(AltBeacon(manufacturerID: 0x0118, id1: uuid, id2: 0xBEEF, id3: 7, referenceRSSI: -66, reserved: 0x42)),
        .eddystoneUID(
            EddystoneUID(
                txPower: -20, namespace: EddystoneNamespace(high: 0x0102, low: 0x0304_0506_0708_090A),
                instance: EddystoneInstance(rawValue: 0xA0A1_A2A3_A4A5))),
        .eddystoneURL(EddystoneURL(txPower: -18, url: "https://www.example.org/beacons?id=3")),
        .eddystoneTLM(EddystoneTLM(batteryMillivolts: 2950, rawTemperature: -0x0280, advertisingCount: 123_456, uptimeTenths: 98_765)),
    ]
}

struct BeaconTests {
    /// Decodes the beacon in `data` (an advertising data byte string).
    func decode(_ data: [UInt8]) -> BeaconDecoding {
        data.withUnsafeBytes { AdvertisingData(bytes: $0).decodeBeacon() }
    }

    @Test(arguments: BeaconSamples.all)
    func encodedBeaconsDecodeToThemselves(beacon: Beacon) throws {
        let data = try #require(AdvertisingReportEncoder.advertisingData(for: beacon))
        let decoding = decode(data)
        #expect(decoding.beacon == beacon)
        #expect(decoding.error == nil)
    }

    @Test func iBeaconFieldsAreBigEndianAsWritten() {
        // 4C 00 02 15, UUID as written, major 0x1234, minor 0x5678, power 0xC5 (−59).
        let data = [UInt8](hex: "1AFF4C000215 E2C56DB5DFFB48D2B060D0F5A71096E0 1234 5678 C5")
        guard case .iBeacon(let b)? = decode(data).beacon else {
            Issue.record("no iBeacon")
            return
        }
        #expect(b.uuid.description == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")
        #expect(b.major == 0x1234)
        #expect(b.minor == 0x5678)
        #expect(b.measuredPower == -59)
        #expect(Beacon.iBeacon(b).measuredPowerAt1m == -59)
    }

    @Test func truncatedIBeaconIsMalformedNotABeacon() {
        // Prefix 4C 00 02 15 but only 10 bytes of UUID.
        let decoding = decode([UInt8](hex: "0FFF4C000215 E2C56DB5DFFB48D2B060"))
        #expect(decoding.beacon == nil)
        #expect(decoding.error == .truncatedBeacon(format: .iBeacon, length: 14, expected: 25))
    }

    @Test func appleDataThatIsNotAnIBeaconIsIgnored() {
        // Apple "nearby" (type 0x10) manufacturer data.
        let decoding = decode([UInt8](hex: "0AFF4C0010050B1C0F2A01"))
        #expect(decoding.beacon == nil)
        #expect(decoding.error == nil)
    }

    @Test func altBeaconAcceptsAnyCompanyID() {
        for company: UInt16 in [0x0000, 0x004C, 0x0118, 0xFFFF] {
            let beacon = Beacon.altBeacon(
                AltBeacon(manufacturerID: company, id1: BeaconSamples.uuid, id2: 1, id3: 2, referenceRSSI: -70, reserved: 0))
            #expect(decode(AdvertisingReportEncoder.advertisingData(for: beacon)!).beacon == beacon)
        }
    }

    @Test func badADLengthEndsTheParseButEarlierStructuresStand() {
        // Flags, then the iBeacon, then a structure claiming 30 bytes with 2 present.
        var data = AdvertisingReportEncoder.advertisingData(for: BeaconSamples.all[0])!
        let goodLength = data.count
        data += [0x1E, 0x09, 0x41]
        let decoding = decode(data)
        #expect(decoding.beacon == BeaconSamples.all[0])
        #expect(decoding.error == .structureOverrun(offset: goodLength, length: 30, available: 2))
        let parsed = data.withUnsafeBytes { AdvertisingData(bytes: $0).parse() }
        #expect(parsed.flags == 0x06)
        #expect(parsed.localName == nil)
        #expect(parsed.error != nil)
    }

    @Test func zeroLengthEndsTheDataAsPadding() {
        var data = AdvertisingReportEncoder.advertisingData(for: BeaconSamples.all[0])!
        data += [0, 0, 0, 0xFF]
        #expect(decode(data).error == nil)
    }

    @Test func eddystoneURLExpandsSchemesAndCodes() {
        let cases: [(String, String)] = [
            ("00 6578616d706c65 07", "http://www.example.com"),
            ("01 6578616d706c65 00 78", "https://www.example.com/x"),
            ("02 61 01 62 08", "http://a.org/b.org"),
            ("03 61 02 03 04 05 06 09 0a 0b 0c 0d", "https://a.edu/.net/.info/.biz/.gov/.edu.net.info.biz.gov"),
        ]
        for (hex, url) in cases {
            let frame = [UInt8](hex: "10 EB " + hex)
            let result = frame.withUnsafeBytes { BeaconDecoder.decodeEddystone($0) }
            #expect(result == .success(.eddystoneURL(EddystoneURL(txPower: -21, url: url))))
            #expect(AdvertisingReportEncoder.encodeURL(url).map { [0x10, 0xEB] + $0 } == frame)
        }
        let badScheme = [UInt8](hex: "10 EB 04 61").withUnsafeBytes { BeaconDecoder.decodeEddystone($0) }
        #expect(badScheme == .failure(.invalidEddystoneURL(field: "scheme", byte: 4, offset: 2)))
        let badByte = [UInt8](hex: "10 EB 03 61 20").withUnsafeBytes { BeaconDecoder.decodeEddystone($0) }
        #expect(badByte == .failure(.invalidEddystoneURL(field: "URL", byte: 0x20, offset: 4)))
    }

    @Test func eddystoneTLMTemperatureIsSigned8Point8() {
        func tlm(_ temperatureHex: String) -> EddystoneTLM? {
            let frame = [UInt8](hex: "20 00 0BB8 \(temperatureHex) 00000010 00000064")
            guard case .success(.eddystoneTLM(let t)?) = frame.withUnsafeBytes({ BeaconDecoder.decodeEddystone($0) }) else { return nil }
            return t
        }
        #expect(tlm("1980")?.temperature == 25.5)
        #expect(tlm("FF80")?.temperature == -0.5)
        #expect(tlm("F600")?.temperature == -10.0)
        #expect(tlm("8000")?.temperature == nil)  // not supported
        let t = tlm("0000")
        #expect(t?.batteryMillivolts == 3000)
        #expect(t?.advertisingCount == 16)
        #expect(t?.uptimeSeconds == 10.0)
    }

    @Test func otherEddystoneFramesAreUnknown() {
        for frameType: UInt8 in [0x30, 0x40, 0x50, 0xFF] {
            let result = [frameType, 0x00, 0x01].withUnsafeBytes { BeaconDecoder.decodeEddystone($0) }
            #expect(result == .success(.eddystoneUnknown(frameType: frameType)))
        }
        // Encrypted TLM (version 1) is unknown too: its fields cannot be read.
        let etlm = [UInt8](hex: "20 01 00112233445566778899AABB").withUnsafeBytes { BeaconDecoder.decodeEddystone($0) }
        #expect(etlm == .success(.eddystoneUnknown(frameType: 0x20)))
    }

    @Test func parsedDataCollectsNamesUUIDsAndServiceData() {
        let data = [UInt8](
            hex: "020106 0809676174657761 79 0303AAFE 11 07 E0961 0A7F5D060B0D248FBDFB56DC5E2 04160F1864 05FF590001 02 020AF4")
        let parsed = data.withUnsafeBytes { AdvertisingData(bytes: $0).parse() }
        #expect(parsed.flags == 6)
        #expect(parsed.localName == "gateway")
        #expect(parsed.isCompleteName)
        #expect(parsed.serviceUUIDs == [.uuid16(0xFEAA), .uuid128(BeaconSamples.uuid)])
        #expect(parsed.serviceData.count == 1)
        #expect(parsed.serviceData == [.init(uuid: .uuid16(0x180F), data: [0x64])])
        #expect(parsed.manufacturerData == [.init(companyID: 0x0059, data: [0x01, 0x02])])
        #expect(parsed.txPowerLevel == -12)
        #expect(parsed.error == nil)
    }

    @Test func addressesPrintMostSignificantFirst() {
        let bytes: [UInt8] = [0xEC, 0xF8, 0x00, 0xEE, 0xF3, 0x0C]  // HCI order
        let report = AdvertisingReport(
            kind: .legacy, eventType: .init(rawValue: 0), address: BluetoothAddress("0C:F3:EE:00:F8:EC")!, addressType: .public, rssi: nil)
        #expect(report.address.littleEndianBytes == bytes)
        #expect(report.address.description == "0C:F3:EE:00:F8:EC")
        #expect(BluetoothAddress("0c-f3-ee-00-f8-ec") == report.address)
        #expect(BluetoothAddress("0C:F3:EE:00:F8") == nil)
    }

    @Test func rssiAndTxPower0x7FMeanNotAvailable() throws {
        let report = AdvertisingReport(
            kind: .extended, eventType: .init(rawValue: 0x10), address: .init(rawValue: 1), addressType: .anonymous, rssi: nil, txPower: nil
        )
        var got: [AdvertisingReport] = []
        AdvertisingReportDecoder.decode(event: AdvertisingReportEncoder.extendedEvent([(report, [])])) { r, data in
            got.append(r)
            #expect(data.bytes.isEmpty)
        }
        let decoded = try #require(got.first)
        #expect(decoded.rssi == nil)
        #expect(decoded.txPower == nil)
        #expect(decoded.addressType == .anonymous)
        #expect(decoded.addressType.description == "anonymous")
        #expect(decoded.primaryPHY == .le1M)
        let event = AdvertisingReportEncoder.legacyEvent([(report, [])])
        #expect(event.last == 0x7F)
    }

    @Test func incompleteExtendedDataIsNotMalformedButCompleteDataIs() {
        var data = AdvertisingReportEncoder.advertisingData(for: BeaconSamples.all[3])!
        data.removeLast(4)  // cut inside the Eddystone-URL structure
        for (status, malformed) in [(UInt16(0x00), 1), (0x20, 0), (0x40, 0)] {
            let report = AdvertisingReport(
                kind: .extended, eventType: .init(rawValue: status), address: .init(rawValue: 9), addressType: .random, rssi: -70)
            var decoder = AdvertisementDecoder()
            var errors: [AdvertisingDataError?] = []
            AdvertisingReportEncoder.extendedEvent([(report, data)]).withUnsafeBytes {
                decoder.decode(type: .event, packet: $0, timestampMicroseconds: nil) { errors.append($0.dataError) }
            }
            #expect(decoder.statistics.malformedAdvertisingData == malformed, "data status \(status >> 5)")
            #expect(errors.count == 1)
            #expect((errors.first! != nil) == (malformed == 1))
        }
    }

    @Test func extendedEventTypeBits() {
        let type = AdvertisingEventType(rawValue: 0b0101_1011)  // connectable, scannable, scan response, legacy off, status 2
        #expect(type.isConnectable && type.isScannable && !type.isDirected && type.isScanResponse && type.isLegacyPDU)
        #expect(type.dataStatus == .incompleteTruncated)
        #expect(AdvertisingEventType(rawValue: 0x20).dataStatus == .incompleteMoreToCome)
    }

    /// Random reports survive encoding and decoding unchanged (property test).
    @Test func randomReportsRoundTrip() {
        var generator = SplitMix64(seed: 0xADADAD)
        for _ in 0..<500 {
            let extended = Bool.random(using: &generator)
            let count = Int.random(in: 1...3, using: &generator)
            var reports: [(report: AdvertisingReport, data: [UInt8])] = []
            for _ in 0..<count {
                let rssi = Int8.random(in: -127...20, using: &generator)
                var report = AdvertisingReport(
                    kind: extended ? .extended : .legacy,
                    eventType: .init(
                        rawValue: extended ? UInt16.random(in: 0...0x7F, using: &generator) : UInt16.random(in: 0...4, using: &generator)),
                    address: .init(rawValue: UInt64.random(in: 0...0xFFFF_FFFF_FFFF, using: &generator)),
                    addressType: .init(rawValue: UInt8.random(in: 0...3, using: &generator)), rssi: rssi == 0x7F ? nil : rssi)
                if extended {
                    report.txPower = Int8.random(in: -127...20, using: &generator)
                    report.primaryPHY = .leCoded
                    report.secondaryPHY = .le2M
                    report.advertisingSID = UInt8.random(in: 0...15, using: &generator)
                    report.periodicAdvertisingInterval = UInt16.random(in: 0...0xFFFF, using: &generator)
                }
                let data = (0..<Int.random(in: 0...(extended ? 60 : 31), using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                reports.append((report, data))
            }
            let event = extended ? AdvertisingReportEncoder.extendedEvent(reports) : AdvertisingReportEncoder.legacyEvent(reports)
            var decoded: [(AdvertisingReport, [UInt8])] = []
            let outcome = AdvertisingReportDecoder.decode(event: event) { decoded.append(($0, Array($1.bytes))) }
            #expect(outcome == .decoded(reports: count))
            #expect(decoded.map(\.0) == reports.map(\.report))
            #expect(decoded.map(\.1) == reports.map(\.data))
        }
    }

    @Test func nonAdvertisingEventsAndCommandsYieldNothing() {
        var decoder = AdvertisementDecoder()
        let data = AdvertisingReportEncoder.advertisingData(for: BeaconSamples.all[0])!
        var count = 0
        // Command complete event, LE connection complete, and a command carrying iBeacon bytes.
        for (type, packet) in [
            (HCIPacketType.event, [UInt8](hex: "0E0401 0C2000")),
            (.event, [UInt8](hex: "3E1301 00 0100 00 00 112233445566 1800 0000 4800 00")),
            (.command, [0x4F, 0xFD, UInt8(data.count)] + data), (.aclData, [0x01, 0x20, 0x02, 0x00, 0x4C, 0x00]),
        ] {
            packet.withUnsafeBytes { decoder.decode(type: type, packet: $0, timestampMicroseconds: nil) { _ in count += 1 } }
        }
        #expect(count == 0)
        #expect(decoder.statistics.packets == 4)
        #expect(decoder.statistics.events == 2)
        #expect(decoder.statistics.advertisingEvents == 0)
        #expect(decoder.statistics.malformed == 0)
    }
}
