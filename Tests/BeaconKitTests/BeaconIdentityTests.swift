import Testing

@testable import BeaconKit

/// The one beacon vocabulary: UUIDs, addresses, identities, formats and their text forms
/// (upper case, fixed width), parsed and printed without Foundation.
@Suite struct BeaconIdentityTests {
    @Test(arguments: [
        "494E5445-4C4C-495F-524F-434B535F4857", "00000000-0000-0000-0000-000000000001", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
    ])
    func uuidRoundTrips(_ text: String) throws {
        let uuid = try #require(BeaconUUID(text.lowercased()))
        #expect(uuid.description == text)
        #expect(BeaconUUID(uuid.description) == uuid)
        #expect(BeaconUUID(text.replacingHyphens()) == nil)
        #expect(BeaconUUID(bytes: uuid.bytes) == uuid)
    }

    @Test func uuidBytesAreBigEndian() {
        let uuid = BeaconUUID(bytes: (0..<16).map { UInt8($0 * 17) })
        #expect(uuid.description == "00112233-4455-6677-8899-AABBCCDDEEFF")
    }

    /// A UUID is accepted exactly when every digit is hex and the hyphens are in place, for every
    /// printable byte at every position.
    @Test func uuidRejectsEveryMalformedByte() {
        let valid = Array("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0".utf8)
        let hyphens: Set = [8, 13, 18, 23]
        for position in valid.indices {
            for byte in UInt8(0x20)...0x7E {
                var text = valid
                text[position] = byte
                let isHex = (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
                let expected = hyphens.contains(position) ? byte == 0x2D : isHex
                #expect((BeaconUUID(String(decoding: text, as: UTF8.self)) != nil) == expected, "byte \(byte) at \(position)")
            }
        }
        #expect(BeaconUUID("") == nil)
        #expect(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E") == nil)
        #expect(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E00") == nil)
    }

    @Test func addressesAreColonSeparatedPairs() {
        #expect(BluetoothAddress(rawValue: 0x0000_0000_00B2).description == "00:00:00:00:00:B2")
        #expect(BluetoothAddress(rawValue: 0xC0FF_EE12_3456).description == "C0:FF:EE:12:34:56")
        #expect(BluetoothAddress("c0-ff-ee-12-34-56")?.description == "C0:FF:EE:12:34:56")
        #expect(BluetoothAddress("C0:FF:EE:12:34") == nil)
        #expect(BluetoothAddress("C0:FF:EE:12:34:5G") == nil)
        #expect(BluetoothAddress("C0:FF:EE:12:34.56") == nil)
        #expect(BluetoothAddress("C0:FF:EE:12:34:567") == nil)
    }

    @Test func hexPadsAndTruncatesToItsWidth() {
        #expect(Hex.string(0xAB, digits: 4) == "00AB")
        #expect(Hex.string(0xAB, digits: 4, lowercase: true) == "00ab")
        #expect(Hex.string(0x1234_5678_9ABC_DEF0, digits: 16) == "123456789ABCDEF0")
        #expect(Hex.string(0x1_2345, digits: 4) == "2345")
        #expect(Hex.parse("00ab") == 0xAB)
        #expect(Hex.parse("") == nil)
        #expect(Hex.parse("12345678901234567") == nil)
        #expect(Hex.parse("0x12") == nil)
    }

    @Test func identitiesNameTheirClients() throws {
        let uuid = try #require(BeaconUUID("494E5445-4C4C-495F-524F-434B535F4857"))
        #expect(BeaconIdentity(uuid: uuid, major: 0, minor: 65535).clientIdentifier == "494E5445-4C4C-495F-524F-434B535F4857.0.65535")
        #expect(BeaconIdentity(uuid: uuid, major: 20594, minor: 7).clientIdentifier == "494E5445-4C4C-495F-524F-434B535F4857.20594.7")
        let eddystone = BeaconIdentity(
            namespace: EddystoneNamespace(hex: "00112233445566778899")!, instance: EddystoneInstance(hex: "AABBCCDDEEFF")!)
        #expect(eddystone.clientIdentifier == "00112233445566778899.AABBCCDDEEFF")
        #expect(eddystone.namespace.description == "00112233445566778899")
        #expect(eddystone.instance.description == "aabbccddeeff")
        let address = BeaconIdentity(address: BluetoothAddress("C0:FF:EE:12:34:56")!)
        #expect(address.clientIdentifier == "addr-C0FFEE123456")
        #expect(address.address.description == "C0:FF:EE:12:34:56")
        // Identities of different kinds with the same words differ.
        #expect(
            BeaconIdentity(high: 0, low: 1, major: 0, minor: 0, kind: .address)
                != BeaconIdentity(high: 0, low: 1, major: 0, minor: 0, kind: .eddystoneUID))
    }

    @Test func identitiesSurviveTheirStorageText() throws {
        let identities = [
            BeaconIdentity(uuid: BeaconUUID(high: .max, low: 1), major: 1, minor: 2),
            BeaconIdentity(namespace: EddystoneNamespace(high: 0xFFFF, low: 7), instance: EddystoneInstance(rawValue: 0xFFFF_FFFF_FFFF)),
            BeaconIdentity(address: BluetoothAddress(rawValue: 0xA1)),
        ]
        for identity in identities { #expect(BeaconIdentity(storageText: identity.storageText) == identity) }
        #expect(BeaconIdentity(storageText: "9:1:2:3:4") == nil)
        #expect(BeaconIdentity(storageText: "0:1:2:3") == nil)
    }

    @Test func regionIdentitiesSurviveTheirDescription() throws {
        let uuid = try #require(BeaconUUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        for identity in [RegionIdentity(uuid: uuid), RegionIdentity(uuid: uuid, major: 7), RegionIdentity(uuid: uuid, major: 0, minor: 9)] {
            #expect(RegionIdentity(identity.description) == identity)
        }
        #expect(RegionIdentity("e2c56db5-dffb-48d2-b060-d0f5a71096e0:1") == RegionIdentity(uuid: uuid, major: 1))
        let full = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
        for text in ["", "\(full):", "\(full):1:2:3", "E2C56DB5:1", "\(full):65536", "\(full):-1", "\(full)::2", "\(full):1:x"] {
            #expect(RegionIdentity(text) == nil, "\(text)")
        }
    }

    @Test func decodedBeaconsCarryTheirIdentity() {
        let uuid = BeaconUUID(high: 1, low: 2)
        #expect(
            Beacon.iBeacon(IBeacon(uuid: uuid, major: 3, minor: 4, measuredPower: -59)).identity
                == BeaconIdentity(uuid: uuid, major: 3, minor: 4))
        #expect(
            Beacon.eddystoneTLM(EddystoneTLM(batteryMillivolts: nil, rawTemperature: 0, advertisingCount: 0, uptimeTenths: 0)).identity
                == nil)
    }

    @Test func formatSetsParseTheWireNames() throws {
        let set = try BeaconFormat.Set(parsing: " ibeacon, EDDYSTONE-UID ,")
        #expect(set == BeaconFormat.Set([.iBeacon, .eddystoneUID]))
        #expect(set.contains(.iBeacon) && !set.contains(.altBeacon))
        #expect(set.description == "ibeacon,eddystone-uid")
        #expect(throws: BeaconFormat.UnknownName(name: "bluetooth")) { try BeaconFormat.Set(parsing: "ibeacon,bluetooth") }
        for format in BeaconFormat.allCases { #expect(BeaconFormat(bit: format.bit) == format) }
        #expect(!BeaconFormat.Set.published.contains(.eddystoneUnknown))
    }
}

extension String {
    fileprivate func replacingHyphens() -> String { String(filter { $0 != "-" }) }
}
