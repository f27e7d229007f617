import BeaconKit
import Foundation
import Planner
import Testing
import Topology

/// The estimator on hand-built rooms whose answer is known: readings made from the same
/// log-distance model the estimator uses, so any error comes from the estimator.
@Suite struct PositionEstimatorTests {
    static let model = LogDistanceModel(referencePower: -59, exponent: 2)
    static let configuration = PositionEstimatorConfiguration(pathLoss: model, clientHeight: 1.2)

    /// Six anchors at 2.5 m around a 20 × 16 m room on level `L0`.
    static let room: [PositionAnchor] = [
        PositionAnchor(id: "a", x: 0, y: 0, height: 2.5, level: "L0"),
        PositionAnchor(id: "b", x: 10, y: 0, height: 2.5, level: "L0"),
        PositionAnchor(id: "c", x: 20, y: 0, height: 2.5, level: "L0"),
        PositionAnchor(id: "d", x: 0, y: 16, height: 2.5, level: "L0"),
        PositionAnchor(id: "e", x: 10, y: 16, height: 2.5, level: "L0"),
        PositionAnchor(id: "f", x: 20, y: 16, height: 2.5, level: "L0"),
    ]

    /// The model's RSSI at (x, y) on level 0 from each anchor (anchors on `L1` are 4 m up and 15 dB through the floor).
    static func readings(_ estimator: PositionEstimator, x: Double, y: Double) -> [PositionObservation] {
        estimator.anchors.enumerated().map { index, anchor in
            let floors = anchor.level == "L0" ? 0.0 : 1.0
            let dz = anchor.height + 4 * floors - 1.2
            let distance = ((anchor.x - x) * (anchor.x - x) + (anchor.y - y) * (anchor.y - y) + dz * dz).squareRoot()
            return PositionObservation(anchor: index, rssi: model.expectedRSSI(atDistance: distance) - 15 * floors, count: 2)
        }
    }

    /// The room's 20 × 16 m floor on `L0` and again on `L1` above it.
    static let twoLevels = ["L0", "L1"].map { PositionArea(level: $0, minX: 0, minY: 0, maxX: 20, maxY: 16) }

    static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    @Test func cleanReadingsLocateTheClient() throws {
        let estimator = try PositionEstimator(anchors: Self.room, configuration: Self.configuration)
        let estimate = try #require(estimator.update(nil, observations: Self.readings(estimator, x: 6, y: 5), at: Self.t0))
        // One window's posterior is wide (6 dB shadowing), and its mean leans toward the room's middle.
        #expect(hypot(estimate.x - 6, estimate.y - 5) < 1.2)
        #expect(estimate.level == "L0")
        #expect(estimate.anchorsUsed == 6)
        #expect(estimate.confidence > 0)
    }

    @Test func aSingleWildReadingBarelyMovesTheEstimate() throws {
        let estimator = try PositionEstimator(anchors: Self.room, configuration: Self.configuration)
        var observations = Self.readings(estimator, x: 6, y: 5)
        let clean = try #require(estimator.update(nil, observations: observations, at: Self.t0))
        // Anchor f, 17 m away, reports what an anchor 1 m away would: 28 dB too strong.
        let far = try #require(estimator.anchorIndex(of: "f"))
        observations[far].rssi = -58
        let wild = try #require(estimator.update(nil, observations: observations, at: Self.t0))
        #expect(hypot(wild.x - 6, wild.y - 5) < 2, "wild reading dragged the estimate to (\(wild.x), \(wild.y))")
        #expect(hypot(wild.x - clean.x, wild.y - clean.y) < 1.5)
        #expect(wild.rejected == 1, "the wild reading was not singled out")
        // A reading of +42 dBm (seen in the tetam data) is refused, not used.
        observations[far].rssi = 42
        let refused = try #require(estimator.update(nil, observations: observations, at: Self.t0))
        #expect(refused.rejected == 1)
        #expect(refused.anchorsUsed == 5)
    }

    @Test func anAnchorHeardThroughTheFloorDoesNotLiftTheClient() throws {
        // Level L1 above has one anchor right above the client, heard loudly through the floor.
        var anchors = Self.room
        anchors.append(PositionAnchor(id: "up", x: 6, y: 5, height: 2.5, level: "L1"))
        anchors.append(PositionAnchor(id: "up2", x: 16, y: 12, height: 2.5, level: "L1"))
        let estimator = try PositionEstimator(anchors: anchors, areas: Self.twoLevels, configuration: Self.configuration)
        var observations = Self.readings(estimator, x: 6, y: 5)
        // Louder than the model's through-floor value by 8 dB, and the far upstairs anchor not heard at all.
        let up = try #require(estimator.anchorIndex(of: "up"))
        observations[up].rssi += 8
        observations.removeAll { $0.anchor == estimator.anchorIndex(of: "up2") }
        let estimate = try #require(estimator.update(nil, observations: observations, at: Self.t0))
        #expect(estimate.level == "L0")
        #expect(hypot(estimate.x - 6, estimate.y - 5) < 2)
        // And a client that is upstairs, under the same anchor, is put upstairs.
        let upstairs =
            [
                PositionObservation(anchor: up, rssi: Self.model.expectedRSSI(atDistance: 1.3), count: 2),
                PositionObservation(
                    anchor: try #require(estimator.anchorIndex(of: "up2")), rssi: Self.model.expectedRSSI(atDistance: 12.8), count: 2),
            ]
            + Self.room.indices.map { PositionObservation(anchor: $0, rssi: -95, count: 1) }
        let above = try #require(estimator.update(nil, observations: upstairs, at: Self.t0))
        #expect(above.level == "L1")
    }

    @Test func theSameInputsGiveTheSameEstimates() throws {
        // Beacons every 5 m, like a venue's region beacons.
        var anchors: [PositionAnchor] = []
        for i in 0...4 {
            for j in 0...3 {
                anchors.append(PositionAnchor(id: "b\(i)\(j)", x: Double(i) * 5, y: Double(j) * 5 + 0.5, height: 2.5, level: "L0"))
            }
        }
        let estimator = try PositionEstimator(anchors: anchors, configuration: Self.configuration)
        func walk() -> [PositionEstimate] {
            var state: PositionState? = nil
            var estimates: [PositionEstimate] = []
            for step in 0..<15 {
                var observations = Self.readings(estimator, x: 2 + Double(step), y: 8)
                // A deterministic pseudo-noise pattern of ±4 dB.
                for index in observations.indices { observations[index].rssi += Double((step * 7 + index * 3) % 9) - 4 }
                let estimate = estimator.update(state, observations: observations, at: Self.t0.addingTimeInterval(Double(step)))!
                state = estimate.state
                estimates.append(estimate)
            }
            return estimates
        }
        let first = walk()
        let second = walk()
        #expect(first == second)
        // The filter followed the walk (1 m/s along y = 8).
        let errors = first.enumerated().map { step, estimate in hypot(estimate.x - (2 + Double(step)), estimate.y - 8) }
        #expect(errors.suffix(10).allSatisfy { $0 < 3 }, "errors \(errors)")
    }

    @Test func withoutEvidenceTheEstimateHoldsAndGrowsUncertain() throws {
        let estimator = try PositionEstimator(anchors: Self.room, configuration: Self.configuration)
        let estimate = try #require(estimator.update(nil, observations: Self.readings(estimator, x: 6, y: 5), at: Self.t0))
        let later = try #require(estimator.update(estimate.state, observations: [], at: Self.t0.addingTimeInterval(5)))
        #expect(later.isPrediction)
        #expect(later.x == estimate.x && later.y == estimate.y)
        #expect(later.confidence > estimate.confidence + 5)
        // Past maximumAge the old estimate is forgotten.
        #expect(
            estimator.update(estimate.state, observations: [], at: Self.t0.addingTimeInterval(estimator.configuration.maximumAge + 1))
                == nil)
        // No state and no evidence: nothing to say.
        #expect(estimator.update(nil, observations: [], at: Self.t0) == nil)
    }

    @Test func anEnterEventPullsTheEstimateIntoTheRegion() throws {
        let estimator = try PositionEstimator(anchors: Self.room, configuration: Self.configuration)
        // Readings say (6, 5); the phone says it entered a 1.5 m region at (9, 5).
        let observations = Self.readings(estimator, x: 6, y: 5).map { PositionObservation(anchor: $0.anchor, rssi: $0.rssi, count: 1) }
        let inside = PositionConstraint(.inside, x: 9, y: 5, level: "L0", radius: 1.5)
        let estimate = try #require(estimator.update(nil, observations: observations, constraints: [inside], at: Self.t0))
        #expect(hypot(estimate.x - 9, estimate.y - 5) < 2.5)
        #expect(estimate.x > 6.5)
        // An enter event alone places the client in the region.
        let alone = try #require(estimator.update(nil, observations: [], constraints: [inside], at: Self.t0))
        #expect(hypot(alone.x - 9, alone.y - 5) < 1.5)
    }

    @Test func aLevelWideEnterEventMovesTheClientToThatLevel() throws {
        // Two levels, anchors on both; the readings are ambiguous (everything faint), the phone
        // reports entering L1's wildcard region.
        var anchors = Self.room
        anchors.append(PositionAnchor(id: "up", x: 10, y: 8, height: 2.5, level: "L1"))
        let estimator = try PositionEstimator(anchors: anchors, areas: Self.twoLevels, configuration: Self.configuration)
        let faint = estimator.anchors.indices.map { PositionObservation(anchor: $0, rssi: -82) }
        let without = try #require(estimator.update(nil, observations: faint, at: Self.t0))
        #expect(without.level == "L0")
        let onL1 = PositionConstraint(.inside, x: 0, y: 0, level: "L1", radius: .infinity)
        let with = try #require(estimator.update(nil, observations: faint, constraints: [onL1], at: Self.t0))
        #expect(with.level == "L1")
        // Leaving L1's region puts it back downstairs.
        let offL1 = PositionConstraint(.outside, x: 0, y: 0, level: "L1", radius: .infinity)
        let back = try #require(estimator.update(with.state, observations: faint, constraints: [offL1], at: Self.t0.addingTimeInterval(1)))
        #expect(back.level == "L0")
    }

    /// A client walking a straight line at 0.5 m/s with clean readings each second: the filter
    /// without a motion model trails behind (2.05 m, part of it the one-window posterior's lean to the
    /// room's middle); tracking a velocity (`velocityGain` 0.1) halves that (1.03 m). Off (the
    /// default), the state's velocity stays zero.
    @Test func trackingAVelocityCutsTheLagBehindAWalkingClient() throws {
        func lag(velocityGain: Double) throws -> (lag: Double, last: PositionState) {
            var configuration = Self.configuration
            configuration.velocityGain = velocityGain
            let estimator = try PositionEstimator(anchors: Self.room, configuration: configuration)
            var state: PositionState? = nil
            var lags: [Double] = []
            for second in 0..<24 {
                let x = 3 + 0.5 * Double(second)
                let estimate = try #require(
                    estimator.update(
                        state, observations: Self.readings(estimator, x: x, y: 8), at: Self.t0.addingTimeInterval(Double(second))))
                state = estimate.state
                if second >= 12 { lags.append(x - estimate.x) }
            }
            return (lags.reduce(0, +) / Double(lags.count), try #require(state))
        }
        let plain = try lag(velocityGain: 0)
        let tracked = try lag(velocityGain: 0.1)
        #expect(plain.lag > 0.3, "the plain filter trails by \(plain.lag) m")
        #expect(abs(tracked.lag) < plain.lag * 0.6, "tracked lag \(tracked.lag) m against \(plain.lag) m")
        #expect(plain.last.vx == 0 && plain.last.vy == 0)
        #expect(abs(tracked.last.vx - 0.5) < 0.2, "tracked velocity \(tracked.last.vx) m/s")
        var configuration = Self.configuration
        configuration.velocityGain = 1.5
        #expect(throws: PositionError.invalidConfiguration(field: "velocityGain", value: 1.5, reason: "must lie in 0...1")) {
            try PositionEstimator(anchors: Self.room, configuration: configuration)
        }
    }

    @Test func perClientStateIsSmall() {
        #expect(MemoryLayout<PositionState>.size <= 56)
    }

    /// A receiver reading 4 dB hot for every anchor: without the offset, the client is placed too
    /// near the anchors; learning it, the estimator finds both the offset and the place.
    @Test func aClientsOwnOffsetIsLearned() throws {
        let fixed = try PositionEstimator(anchors: Self.room, configuration: Self.configuration)
        let learning = fixed.learningOffsets(gain: 0.1)
        #expect(learning.configuration.offsetGain == 0.1 && fixed.configuration.offsetGain == 0)
        #expect(fixed.learningOffsets(gain: 7).configuration.offsetGain == 1)
        #expect(fixed.learningOffsets(gain: .nan).configuration.offsetGain == 0)
        let hot = Self.readings(learning, x: 4, y: 4).map { PositionObservation(anchor: $0.anchor, rssi: $0.rssi + 4, count: $0.count) }
        var learned: PositionEstimate? = nil
        var unlearned: PositionEstimate? = nil
        for second in 0..<120 {
            let time = Self.t0.addingTimeInterval(Double(second))
            learned = learning.update(learned?.state, observations: hot, at: time)
            unlearned = fixed.update(unlearned?.state, observations: hot, at: time)
        }
        let estimate = try #require(learned)
        let plain = try #require(unlearned)
        #expect(abs(estimate.state.offset - 4) < 1, "learned \(estimate.state.offset) dB, not 4")
        #expect(plain.state.offset == 0)
        let error = hypot(estimate.x - 4, estimate.y - 4)
        #expect(error < 0.7, "placed \(error) m off")
        #expect(error < hypot(plain.x - 4, plain.y - 4) / 2)

        // Beyond a receiver's few dB the offset stops: 9 dB hot is learned as the 5 dB limit.
        let hotter = hot.map { PositionObservation(anchor: $0.anchor, rssi: $0.rssi + 5, count: $0.count) }
        var louder: PositionEstimate? = nil
        for second in 0..<120 {
            louder = learning.update(louder?.state, observations: hotter, at: Self.t0.addingTimeInterval(Double(second)))
        }
        #expect(try #require(louder).state.offset == PositionState.maximumOffset)

        // Readings the model expects below the floor teach nothing: weak ones are heard only when they read high.
        var configuration = Self.configuration
        configuration.offsetFloor = -60
        let floored = try PositionEstimator(anchors: Self.room, configuration: configuration).learningOffsets(gain: 0.1)
        let untaught = try #require(floored.update(nil, observations: hot, at: Self.t0))
        #expect(untaught.state.offset == 0)
    }

    @Test func badConfigurationAndDuplicateAnchorsAreNamed() {
        var configuration = Self.configuration
        configuration.shadowingSigma = 0
        #expect(throws: PositionError.invalidConfiguration(field: "shadowingSigma", value: 0, reason: "must be a positive number")) {
            try PositionEstimator(anchors: Self.room, configuration: configuration)
        }
        configuration = Self.configuration
        configuration.offsetGain = -0.1
        #expect(throws: PositionError.invalidConfiguration(field: "offsetGain", value: -0.1, reason: "must lie in 0...1")) {
            try PositionEstimator(anchors: Self.room, configuration: configuration)
        }
        #expect(throws: PositionError.duplicateAnchor(id: "a")) {
            try PositionEstimator(anchors: Self.room + [Self.room[0]], configuration: Self.configuration)
        }
    }

    @Test func pathLossModelRoundTrips() {
        let model = LogDistanceModel(referencePower: -59, exponent: 2.3)
        for distance in [0.5, 1, 3.7, 12, 40] {
            #expect(abs(model.distance(forRSSI: model.expectedRSSI(atDistance: distance)) - distance) < 1e-9)
        }
        #expect(model.expectedRSSI(atDistance: 1) == -59)
    }
}

/// A topology-built estimator reads a region's declared `power` as its beacon's offset from the
/// model's reference: a beacon declared 8 dB hotter than the venue is expected 8 dB hotter.
@Suite struct PositionEstimatorDeclaredPowerTests {
    @Test func aRegionsDeclaredPowerIsItsAnchorsOffset() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("power-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        let files = [
            "venue.conf": "uuid = 11111111-2222-3333-4444-555555555555\npower = -70\n", "levels.csv": "id\nL0\n",
            "regions.csv":
                "id,uuid,major,minor,x,y,level,radius,power\nhot,,1,1,0,0,L0,1,-62\nplain,,1,2,10,0,L0,1,\ncold,,1,3,20,0,L0,1,-78\n",
            "links.csv": "from,to\nhot,plain\nplain,cold\n",
        ]
        for (name, text) in files { try Data(text.utf8).write(to: url.appendingPathComponent(name)) }
        let topology = try Topology.load(directory: url)
        let model = LogDistanceModel(referencePower: -70, exponent: 2.5)
        let estimator = try PositionEstimator(
            topology: topology, anchors: .regionBeacons, configuration: PositionEstimatorConfiguration(pathLoss: model))
        let offsets = try ["hot", "plain", "cold"].map { id in
            estimator.anchors[try #require(estimator.anchorIndex(ofRegion: id))].rssiOffset
        }
        #expect(offsets == [8, 0, -8])
        // Readings of the beacons as they really are, from x = 6: the estimate lands there, not
        // pulled towards the hot beacon nor pushed away from the cold one.
        let observations = try ["hot", "plain", "cold"].enumerated().map { n, id in
            let anchor = try #require(estimator.anchorIndex(ofRegion: id))
            let a = estimator.anchors[anchor]
            let dz = a.height - estimator.configuration.clientHeight
            let distance = ((a.x - 6) * (a.x - 6) + dz * dz).squareRoot()
            return PositionObservation(anchor: anchor, rssi: model.expectedRSSI(atDistance: distance) + [8.0, 0, -8][n], count: 4)
        }
        let estimate = try #require(estimator.update(nil, observations: observations, at: Date(timeIntervalSince1970: 0)))
        #expect(abs(estimate.x - 6) < 1, "\(estimate.x)")
    }
}
