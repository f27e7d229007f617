import BeaconKit
import Foundation
import Testing

struct FilterTests {
    @Test func trimmedMeanDropsTheExtremesAndOldSamples() {
        var filter = TrimmedMeanRSSIFilter(windowSeconds: 20, trimFraction: 0.1)
        #expect(filter.value() == nil)
        // Ten samples: −60 eight times, one −20 outlier and one −100 outlier: 10 % each end dropped.
        let samples: [Int8] = [-60, -60, -20, -60, -60, -100, -60, -60, -60, -60]
        for (i, rssi) in samples.enumerated() { filter.add(rssi, at: Int64(i) * 1_000_000) }
        #expect(filter.value() == -60)
        #expect(filter.count == 10)
        // 25 s later, a new sample: everything older than 20 s has left the window.
        filter.add(-70, at: 34_000_000)
        #expect(filter.count == 1)
        #expect(filter.value() == -70)
        filter.expire(now: 60_000_000)
        #expect(filter.value() == nil)
    }

    @Test func trimmedMeanWithoutTrimmingIsTheMean() {
        var filter = TrimmedMeanRSSIFilter(windowSeconds: 20, trimFraction: 0)
        for (i, rssi) in [-50, -60, -70].enumerated() { filter.add(Int8(rssi), at: Int64(i)) }
        #expect(filter.value() == -60)
    }

    @Test func trimmedMeanKeepsMemoryBounded() {
        var filter = TrimmedMeanRSSIFilter(windowSeconds: 1000, capacity: 50)
        for i in 0..<10_000 { filter.add(Int8(-(i % 50) - 30), at: Int64(i)) }
        #expect(filter.count == 50)
    }

    @Test func absurdParametersAreClampedNotTrapped() {
        var filter = TrimmedMeanRSSIFilter(windowSeconds: .infinity, trimFraction: .nan)
        filter.add(-50, at: 0)
        filter.add(-60, at: 500_000_000_000_000)  // within the clamped 10^9 s window
        #expect(filter.value() == -55)
        filter.add(-70, at: .max)  // far beyond: the older samples leave, nothing overflows
        #expect(filter.value() == -70)
        var arma = ARMARSSIFilter(speed: .nan)
        arma.add(-50)
        arma.add(-60)
        #expect(arma.value == -51)
    }

    @Test func armaMovesAShareOfTheWayTowardsEachSample() throws {
        var filter = ARMARSSIFilter(speed: 0.1)
        #expect(filter.value == nil)
        filter.add(-60)
        #expect(filter.value == -60)
        filter.add(-70)
        #expect(abs(try #require(filter.value) - -61) < 1e-9)
        for _ in 0..<200 { filter.add(-80) }
        #expect(abs(try #require(filter.value) - -80) < 0.01)
    }

    @Test func logDistanceModel() throws {
        let model = LogDistanceModel(exponent: 2)
        #expect(abs(try #require(model.distance(rssi: -59, measuredPower: -59)) - 1) < 1e-12)
        #expect(abs(try #require(model.distance(rssi: -79, measuredPower: -59)) - 10) < 1e-9)
        #expect(abs(try #require(LogDistanceModel(exponent: 4).distance(rssi: -79, measuredPower: -59)) - 10.0.squareRoot()) < 1e-9)
        #expect(model.distance(rssi: 0, measuredPower: -59) == nil)
        #expect(model.distance(rssi: .nan, measuredPower: -59) == nil)
    }

    @Test func curveFittedModel() throws {
        let model = CurveFittedDistanceModel()
        // Ratio 1: A + C.
        #expect(abs(try #require(model.distance(rssi: -59, measuredPower: -59)) - (0.89976 + 0.111)) < 1e-9)
        // Stronger than the 1 m power: ratio^10.
        #expect(abs(try #require(model.distance(rssi: -50, measuredPower: -59)) - pow(50.0 / 59, 10)) < 1e-12)
        // Monotonic: weaker signal, further away.
        var last = 0.0
        for rssi in stride(from: -40.0, through: -100, by: -5) {
            let d = try #require(model.distance(rssi: rssi, measuredPower: -59))
            #expect(d > last)
            last = d
        }
    }

    @Test func proximityThresholds() {
        #expect(Proximity(distance: 0.1) == .immediate)
        #expect(Proximity(distance: 0.49) == .immediate)
        #expect(Proximity(distance: 0.5) == .near)
        #expect(Proximity(distance: 2.99) == .near)
        #expect(Proximity(distance: 3) == .far)
        #expect(Proximity(distance: 40) == .far)
        #expect(Proximity(distance: nil) == .unknown)
        #expect(Proximity(distance: -1) == .unknown)
        #expect(Proximity(distance: .infinity) == .unknown)
    }

    @Test func eddystoneMeasuredPowerAt1mSubtracts41dB() {
        let beacon = Beacon.eddystoneUID(EddystoneUID(txPower: -20, namespace: .init(high: 0, low: 0), instance: .init(rawValue: 0)))
        #expect(beacon.measuredPowerAt1m == -61)
        #expect(beacon.txPower == -20)
    }
}
