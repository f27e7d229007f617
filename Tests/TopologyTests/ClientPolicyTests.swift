import BeaconKit
import Foundation
import Testing

@testable import Topology

/// `clients.csv`: parsed into a ``ClientPolicy`` that decides which identities are clients, with
/// every malformed line named by file, line and field.
@Suite struct ClientPolicyTests {
    static let tagUUID = "5A1D0000-BEAC-4F1E-9E70-000000000001"
    static let policy = """
        role,uuid,major,namespace,address,note
        # tags
        client,\(tagUUID),1000-1999,,,tags
        client,,,EDD1EBEAC04E5DEFA017,,phones' Eddystone
        venue,,,,AC:23:3F:00:00:00-AC:23:3F:FF:FF:FF,our beacons
        client,,,,AC:23:3F:00:00:10,a tag in our own range: venue rules win
        """

    func load(_ clients: String?) throws -> TopologyLoader.Result {
        try VenueFixture.load(VenueFixture.small(replacing: "clients.csv", with: clients))
    }

    func messages(_ result: TopologyLoader.Result) -> [String] { VenueFixture.messages(result) }

    @Test("the rules decide: venue rules first, then client rules, then a region's UUID is the venue's, the rest unlisted")
    func verdicts() throws {
        let topology = try VenueFixture.loaded(VenueFixture.small(replacing: "clients.csv", with: Self.policy))
        let policy = try #require(topology.clientPolicy)
        #expect(policy.rules.count == 4)
        let regionUUID = try #require(topology.regions.first?.identity.uuid)
        let address: UInt64 = 0x11_22_33_44_55_66
        func tag(_ major: UInt16) -> BeaconIdentity { BeaconIdentity(uuid: Self.tagUUID, major: major, minor: 7)! }
        #expect(policy.verdict(for: tag(1000), address: address) == .client)
        #expect(policy.verdict(for: tag(1999), address: address) == .client)
        #expect(policy.verdict(for: tag(2000), address: address) == .unlisted, "outside the major range")
        let phone = BeaconIdentity(namespace: EddystoneNamespace(hex: "EDD1EBEAC04E5DEFA017")!, instance: EddystoneInstance(rawValue: 9))
        #expect(policy.verdict(for: phone, address: address) == .client)
        let other = BeaconIdentity(namespace: EddystoneNamespace(hex: "EDD1EBEAC04E5DEFA018")!, instance: EddystoneInstance(rawValue: 9))
        #expect(policy.verdict(for: other, address: address) == .unlisted)
        // The venue's beacon's TLM frame: known only by its address, in the venue's range.
        let tlm = BeaconIdentity(address: BluetoothAddress(rawValue: 0xAC_23_3F_01_02_03))
        #expect(policy.verdict(for: tlm, address: 0xAC_23_3F_01_02_03) == .venue)
        #expect(policy.verdict(for: tag(1000), address: 0xAC_23_3F_00_00_10) == .venue, "venue rules before client rules")
        // A spare beacon with the regions' UUID but not in regions.csv, and a neighbour's iBeacon.
        #expect(policy.verdict(for: BeaconIdentity(uuid: regionUUID, major: 9, minor: 9), address: address) == .venue)
        #expect(
            policy.verdict(for: BeaconIdentity(uuid: "FDA50693-A4E2-4FB1-AFCF-C6EB07647825", major: 1, minor: 1)!, address: address)
                == .unlisted)
    }

    @Test("without clients.csv there is no policy, and check warns that every identity heard becomes a client")
    func missingFileWarns() throws {
        let result = try load(nil)
        #expect(result.errors.isEmpty)
        #expect(try #require(result.topology).clientPolicy == nil)
        #expect(
            messages(result).contains { $0.hasPrefix("clients.csv:0: missing: every identity the gateways hear") }, "\(messages(result))")
        #expect(try load(Self.policy).warnings.isEmpty)
    }

    @Test(
        "every malformed rule is an error naming the line and the field",
        arguments: [
            ("friend,\(tagUUID),,,,", "clients.csv:2: role: 'friend' is not"),
            ("client,,,,,", "clients.csv:2: a rule needs one of uuid"),
            (
                "client,\(tagUUID),,EDD1EBEAC04E5DEFA017,,",
                "clients.csv:2: a rule matches by one of uuid, namespace or address, not several"
            ),
            ("client,,5,EDD1EBEAC04E5DEFA017,,", "clients.csv:2: major: needs a uuid"),
            ("client,5A1D0000-BEAC,,,,", "clients.csv:2: uuid: '5A1D0000-BEAC' is not a UUID"),
            ("client,\(tagUUID),2000-1000,,,", "clients.csv:2: major: '2000-1000' is not a major or a range"),
            ("client,\(tagUUID),70000,,,", "clients.csv:2: major: '70000' is not"),
            ("client,,,EDD1,,", "clients.csv:2: namespace: 'EDD1' is not an Eddystone namespace"),
            ("venue,,,,AC:23:3F:00:00-AC:23:3F:FF:FF:FF,", "clients.csv:2: address: 'AC:23:3F:00:00-AC:23:3F:FF:FF:FF' is not"),
        ])
    func malformed(line: String, expected: String) throws {
        let result = try load("role,uuid,major,namespace,address,note\n" + line + "\n")
        #expect(messages(result).contains { $0.hasPrefix(expected) }, "\(messages(result))")
        #expect(result.topology == nil)
    }
}
