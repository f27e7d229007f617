import Foundation
import Testing

@testable import Topology

/// `venue.conf`'s `room-dwell`, `room-margin`, `level-dwell`, `level-reach` and `presence-offset-gain`
/// tune room presence;
/// bad values name the file, the line and the key.
@Suite struct PresenceTuningTests {
    func load(_ venueConf: String) throws -> TopologyLoader.Result {
        try VenueFixture.load(VenueFixture.small(venueConf: venueConf))
    }

    @Test func defaultsAndValidKeys() throws {
        #expect(try #require(try load("").topology).presenceTuning == PresenceTuning())
        let result = try load("room-dwell = 5\nroom-margin = 1.5\nlevel-dwell = 8\nlevel-reach = 20\npresence-offset-gain = 0\n")
        let topology = try #require(result.topology, "\(VenueFixture.messages(result))")
        #expect(topology.presenceTuning == PresenceTuning(roomDwell: 5, roomMargin: 1.5, levelDwell: 8, levelReach: 20, offsetGain: 0))
        #expect(!VenueFixture.messages(result).contains { $0.contains("unknown key") })
    }

    @Test func badValuesNameFileLineAndKey() throws {
        try VenueFixture.expectRefused(
            venueConf: "room-dwell = -1\nroom-margin = wide\nlevel-dwell = 301\nlevel-reach = 1e9\npresence-offset-gain = 2\n",
            [
                "venue.conf:4: room-dwell: '-1' is not a number of seconds from 0 to 120",
                "venue.conf:5: room-margin: 'wide' is not a distance in metres from 0 to 10",
                "venue.conf:6: level-dwell: '301' is not a number of seconds from 0 to 300",
                "venue.conf:7: level-reach: '1e9' is not a distance in metres from 0 to 100",
                "venue.conf:8: presence-offset-gain: '2' is not a number from 0 to 1",
            ])
    }
}
