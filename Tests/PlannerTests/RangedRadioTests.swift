import Foundation
@testable import Planner
import Simulator
import Testing
import Topology

/// ``RangedRadio``: region beacons' powers fitted from what phones standing at their neighbours
/// ranged, and the planner's ranges from them.
@Suite struct RangedRadioTests {
    /// Nine beacons along a corridor, 5 m apart (the venue's default radio: −70 dBm, 10 m range),
    /// and the pinned region (no beacon position: never fitted).
    static func row() throws -> Topology { try PlannerFixture.corridor(regions: 9, spacing: 5) }

    /// Reports of a phone standing under each beacon in turn, `rounds` times: every beacon it
    /// detects (the venue's model, `truth`'s powers, 5 dB shadowing, the −95 dBm sensitivity) with
    /// its reading.
    static func reports(_ topology: Topology, truth: [Double], rounds: Int) -> [[(region: Int, rssi: Double)]] {
        let noise = CounterNoise(seed: 42)
        var reports: [[(region: Int, rssi: Double)]] = []
        for round in 0..<rounds {
            for here in topology.regions.indices {
                guard let phone = topology.regions[here].position else { continue }
                var heard: [(region: Int, rssi: Double)] = []
                for (index, region) in topology.regions.enumerated() {
                    guard let apart = region.position?.distance(to: phone) else { continue }
                    let reading =
                        (truth[index] - 25 * log10((apart * apart + 1.69).squareRoot()) + 5
                        * noise.normal(UInt64(round), UInt64(here), UInt64(index))).rounded()
                    if reading >= -95 { heard.append((index, reading)) }
                }
                reports.append(heard)
            }
        }
        return reports
    }

    @Test func aBeaconWeakerThanDeclaredIsFittedSoAndItsRangeShrinks() throws {
        let topology = try Self.row()
        var truth = [Double](repeating: -70, count: topology.regions.count)
        let weak = try #require(topology.regionIndex(id: "r5"))
        truth[weak] = -80
        // These phones are all alike: no selection bias to take off.
        var radio = RangedRadio(topology: topology, configuration: RangedRadio.Configuration(selectionBias: 0))
        for report in Self.reports(topology, truth: truth, rounds: 60) { radio.observe(report) }
        radio.refit()
        for (index, fit) in radio.fits.enumerated() where fit.id != "all" {
            #expect(fit.usable, "\(fit.id): \(fit.samples) reports, error \(fit.error)")
            #expect(abs(fit.power - truth[index]) < 2, "\(fit.id): fitted \(fit.power), true \(truth[index])")
        }
        // The planner takes the weak one; the others are as declared (within the departure).
        let powers = radio.plannerPowers
        #expect(try #require(powers[weak]) < -78)
        for (index, power) in powers.enumerated() where index != weak { #expect(power == nil) }
        #expect(Set(radio.estimatorPowers.keys) == ["r5"])
        // By default the selection bias of phones of many radios is taken off the likeliest power.
        var biased = RangedRadio(topology: topology)
        for report in Self.reports(topology, truth: truth, rounds: 60) { biased.observe(report) }
        biased.refit()
        for (fit, unbiased) in zip(biased.fits, radio.fits) where fit.id != "all" {
            #expect(abs(fit.power - (unbiased.power - 3)) < 0.6, "\(fit.id)")
        }
        let planner = FrontierPlanner(topology: topology).withMeasuredPowers(powers)
        #expect(planner.detectionRanges[weak] < topology.detectionRanges[weak] / 2)
        #expect(planner.reachRanges[weak] < topology.reachRanges[weak] / 2)
    }

    @Test func readingsItCannotPlaceAreIgnoredAndNothingTraps() throws {
        let topology = try Self.row()
        var radio = RangedRadio(topology: topology)
        radio.observe([])
        radio.observe([(region: -1, rssi: -40), (region: 99, rssi: -40), (region: 0, rssi: 0)])
        // Nobody near a beacon: the nearest reads 20 m off.
        radio.observe([(region: 0, rssi: -70 - 25 * log10(20)), (region: 1, rssi: -90)])
        #expect(radio.samples == 0)
        radio.refit()
        #expect(radio.fits.allSatisfy { !$0.usable && $0.power == $0.declared && $0.samples == 0 })
        #expect(radio.plannerPowers.allSatisfy { $0 == nil })
    }

    @Test func storedFitsAreTakenByIDAndUnknownOnesIgnored() throws {
        let topology = try Self.row()
        var radio = RangedRadio(topology: topology)
        radio.restore([
            RangedRadio.Fit(id: "r2", declared: -70, power: -78, error: 0.5, samples: 500, usable: true),
            RangedRadio.Fit(id: "gone", declared: -70, power: -90, error: 0.5, samples: 500, usable: true),
            RangedRadio.Fit(id: "r3", declared: -70, power: -60, error: 5, samples: 4, usable: false),
        ])
        #expect(radio.fits.map(\.id) == topology.regions.map(\.id))
        let r2 = try #require(topology.regionIndex(id: "r2"))
        #expect(radio.plannerPowers[r2] == -78)
        #expect(radio.plannerPowers.enumerated().allSatisfy { $0.offset == r2 || $0.element == nil })
        #expect(radio.estimatorPowers == ["r2": -78])
    }

    @Test func aShieldsRangeFollowsTheMeasuredPower() throws {
        let topology = try PlannerFixture.corridor()
        let r1 = try #require(topology.regionIndex(id: "r1"))
        let r2 = try #require(topology.regionIndex(id: "r2"))
        let planner = FrontierPlanner(topology: topology)
        // Declared −70 dBm: a 10 m range does not reach 10 m away, its radius and the wake margin.
        #expect(!planner.shields(r1, r2))
        var powers = [Double?](repeating: nil, count: topology.regions.count)
        powers[r1] = -60
        let stronger = planner.withMeasuredPowers(powers)
        #expect(stronger.shields(r1, r2))
        let declaredAgain = stronger.withMeasuredPowers([Double?](repeating: nil, count: topology.regions.count))
        #expect(!declaredAgain.shields(r1, r2))
    }
}
