import Testing

@testable import Agent

/// The text forms the agent publishes for every beacon in every window (upper case, fixed width).
@Suite struct BeaconIdentityTextTests {
    @Test(arguments: ["494E5445-4C4C-495F-524F-434B535F4857", "00000000-0000-0000-0000-000000000001", "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF"])
    func uuidRoundTrips(_ text: String) throws {
        let uuid = try #require(BeaconUUID(text.lowercased()))
        #expect(uuid.description == text)
        #expect(BeaconUUID(uuid.description) == uuid)
    }

    @Test func uuidBytesAreBigEndian() {
        let uuid = BeaconUUID(bytes: (0..<16).map { UInt8($0 * 17) })
        #expect(uuid.description == "00112233-4455-6677-8899-AABBCCDDEEFF")
    }

    @Test func addressesAreColonSeparatedPairs() {
        #expect(DeviceAddress(value: 0x0000_0000_00B2).description == "00:00:00:00:00:B2")
        #expect(DeviceAddress(value: 0xC0FF_EE12_3456).description == "C0:FF:EE:12:34:56")
        #expect(DeviceAddress("c0-ff-ee-12-34-56")?.description == "C0:FF:EE:12:34:56")
    }

    @Test func hexStringPadsAndTruncatesToItsWidth() {
        #expect(hexString(0xAB, digits: 4) == "00AB")
        #expect(hexString(0x1234_5678_9ABC_DEF0, digits: 16) == "123456789ABCDEF0")
        #expect(hexString(0x1_2345, digits: 4) == "2345")
    }
}
