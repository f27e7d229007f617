// swift-format-ignore-file: AlwaysUseLowerCamelCase
// (The expected values are decoded as they are named in the vectors file: snake_case.)
import BeaconKit
import Foundation
import TestSupport
import Testing

/// ../shared/data/vectors/hci-event-vectors.json: complete HCI events with scapy's decode (and, for
/// aioblescan's, that project's own expected values).
@Suite(.requiresSharedData)
struct VectorTests {
    struct Vector: Decodable {
        var name: String
        var hci_event_hex: String
        var scapy_decode: [ExpectedReport]
    }

    struct ExpectedReport: Decodable {
        var evt_type: Int
        var addr_type: Int
        var addr: String
        var rssi: Int
        var beacons: [ExpectedBeacon]
    }

    struct ExpectedBeacon: Decodable {
        var kind: String
        var uuid: String?
        var major: Int?
        var minor: Int?
        var tx_power: Int?
        var id1: String?
        var id2: Int?
        var id3: Int?
        var mfg_reserved: Int?
        var frame_type: Int?
        var namespace: String?
        var instance: String?
        var url: String?
        var tlm: TLM?
        var tlm_temperature_c: Double?

        struct TLM: Decodable {
            var batt_mv: Int
            var temperature: Int
            var adv_cnt: Int
            var sec_cnt: Int
        }
    }

    static func vectors() throws -> [Vector] {
        guard SharedData.isAvailable else { return [] }
        let data = try Data(contentsOf: SharedData.url("vectors/hci-event-vectors.json"))
        return try JSONDecoder().decode([Vector].self, from: data)
    }

    @Test func thereAreEightVectors() throws {
        #expect(try Self.vectors().count == 8)
    }

    @Test(arguments: try vectors().map(\.name))
    func vectorDecodesAsExpected(name: String) throws {
        let vector = try #require(try Self.vectors().first { $0.name == name })
        let h4 = [UInt8](hex: vector.hci_event_hex)
        var decoder = AdvertisementDecoder()
        var decoded: [DecodedAdvertisement] = []
        h4.withUnsafeBytes { bytes in
            decoder.decode(h4Packet: bytes, timestampMicroseconds: nil) { decoded.append($0.copy()) }
        }
        #expect(decoder.statistics.malformed == 0)
        #expect(decoded.count == vector.scapy_decode.count)
        for (advertisement, expected) in zip(decoded, vector.scapy_decode) {
            #expect(Int(advertisement.report.eventType.rawValue) == expected.evt_type)
            #expect(Int(advertisement.report.addressType.rawValue) == expected.addr_type)
            #expect(advertisement.report.address.description == expected.addr.uppercased())
            #expect(advertisement.report.rssi.map(Int.init) == expected.rssi)
            #expect(advertisement.dataError == nil)
            #expect((advertisement.beacon == nil ? 0 : 1) == expected.beacons.count)
            guard let beacon = advertisement.beacon, let want = expected.beacons.first else { continue }
            check(beacon, against: want)
        }
    }

    private func check(_ beacon: Beacon, against want: ExpectedBeacon) {
        switch beacon {
        case .iBeacon(let b):
            #expect(want.kind == "ibeacon")
            #expect(b.uuid.description == want.uuid?.uppercased())
            #expect(Int(b.major) == want.major)
            #expect(Int(b.minor) == want.minor)
            #expect(Int(b.measuredPower) == want.tx_power)
        case .altBeacon(let b):
            #expect(want.kind == "altbeacon")
            #expect(b.id1.description == want.id1?.uppercased())
            #expect(Int(b.id2) == want.id2)
            #expect(Int(b.id3) == want.id3)
            #expect(Int(b.referenceRSSI) == want.tx_power)
            #expect(Int(b.reserved) == want.mfg_reserved)
        case .eddystoneUID(let b):
            #expect(want.kind == "eddystone" && want.frame_type == 0)
            #expect(b.namespace.description == want.namespace)
            #expect(b.instance.description == want.instance)
            #expect(Int(b.txPower) == want.tx_power)
        case .eddystoneURL(let b):
            #expect(want.kind == "eddystone" && want.frame_type == 1)
            #expect(b.url == want.url)
            #expect(Int(b.txPower) == want.tx_power)
        case .eddystoneTLM(let b):
            #expect(want.kind == "eddystone" && want.frame_type == 2)
            #expect(b.batteryMillivolts.map(Int.init) == want.tlm?.batt_mv)
            #expect(Int(b.rawTemperature) == want.tlm?.temperature)
            #expect(b.temperature == want.tlm_temperature_c)
            #expect(Int(b.advertisingCount) == want.tlm?.adv_cnt)
            #expect(Int(b.uptimeTenths) == want.tlm?.sec_cnt)
        case .eddystoneUnknown(let frameType):
            Issue.record("unexpected unknown Eddystone frame 0x\(String(frameType, radix: 16)) for \(want.kind)")
        }
    }
}
