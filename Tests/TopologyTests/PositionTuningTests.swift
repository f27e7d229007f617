import Foundation
import Testing

@testable import Topology

/// `venue.conf`'s `walking-speed`, `velocity-gain` and `anchors-per-estimate` tune the
/// coordinator's position filter; a venue that sets none leaves the defaults (nil here).
@Suite struct PositionTuningTests {
    func load(_ venueConf: String) throws -> TopologyLoader.Result {
        try VenueFixture.load(VenueFixture.small(venueConf: venueConf))
    }

    @Test func unsetKeysLeaveTheDefaults() throws {
        let topology = try #require(try load("").topology)
        #expect(topology.positionTuning == PositionTuning())
        #expect(topology.positionTuning.walkingSpeed == nil && topology.positionTuning.velocityGain == nil)
        #expect(topology.positionTuning.anchorsPerEstimate == nil)
    }

    @Test func validKeysAreCarried() throws {
        let result = try load("walking-speed = 1.2\nvelocity-gain = 0.1\nanchors-per-estimate = 12\n")
        let topology = try #require(result.topology, "\(VenueFixture.messages(result))")
        #expect(topology.positionTuning == PositionTuning(walkingSpeed: 1.2, velocityGain: 0.1, anchorsPerEstimate: 12))
        #expect(!VenueFixture.messages(result).contains { $0.contains("unknown key") })
        // The ends of the ranges are valid.
        #expect(
            try load("walking-speed = 10\nvelocity-gain = 0\n").topology?.positionTuning
                == PositionTuning(walkingSpeed: 10, velocityGain: 0))
    }

    @Test func outOfRangeValuesNameFileAndLine() throws {
        try VenueFixture.expectRefused(
            venueConf: "walking-speed = 0\nvelocity-gain = 1.5\n",
            [
                "venue.conf:4: walking-speed: '0' is not a speed in m/s from 0.1 to 10",
                "venue.conf:5: velocity-gain: '1.5' is not a number from 0 to 1",
            ])
        try VenueFixture.expectRefused(
            venueConf: "walking-speed = fast\n", ["venue.conf:4: walking-speed: 'fast' is not a speed in m/s from 0.1 to 10"])
        try VenueFixture.expectRefused(
            venueConf: "velocity-gain = -0.1\n", ["venue.conf:4: velocity-gain: '-0.1' is not a number from 0 to 1"])
        for bad in ["0", "65", "8.5"] {
            try VenueFixture.expectRefused(
                venueConf: "anchors-per-estimate = \(bad)\n",
                ["venue.conf:4: anchors-per-estimate: '\(bad)' is not a whole number from 1 to 64"])
        }
    }

    @Test func unknownKeyWarningListsTheTuningKeys() throws {
        let messages = VenueFixture.messages(try load("walking-pace = 1\n"))
        #expect(
            messages.contains {
                $0.hasPrefix("venue.conf:4: unknown key 'walking-pace' ignored")
                    && $0.contains("walking-speed, velocity-gain, anchors-per-estimate")
            }, "\(messages)")
    }

    @Test func theTetamRoomSetsItsFilter() throws {
        let result = TopologyLoader().load(directory: VenueFixture.example("tetam"))
        let topology = try #require(result.topology, "\(VenueFixture.messages(result))")
        #expect(topology.positionTuning == PositionTuning(walkingSpeed: 1.2, velocityGain: 0.1, anchorsPerEstimate: 12))
        #expect(topology.radio.shadowing == 6)
        // The example venues that set nothing keep the estimator's defaults.
        for name in ["museum", "mall"] {
            #expect(try #require(TopologyLoader().load(directory: VenueFixture.example(name)).topology).positionTuning == PositionTuning())
        }
    }
}
