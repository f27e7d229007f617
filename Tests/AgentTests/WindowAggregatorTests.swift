import BeaconKit
import Testing
import WireProtocol

@testable import Agent

/// Window boundaries, per-beacon aggregation and the empty-window cap, on hand-made observations.
@Suite struct WindowAggregatorTests {
    let uuid = BeaconUUID("494E5445-4C4C-495F-524F-434B535F4857")!

    func observation(_ time: Int64, rssi: Int, minor: UInt16 = 1, address: UInt64 = 0xA1) -> BeaconObservation {
        BeaconObservation(
            format: .iBeacon, identity: BeaconIdentity(uuid: uuid, major: 7, minor: minor), address: BluetoothAddress(rawValue: address),
            rssi: rssi, txPower: -59, timeMicros: time)
    }

    @Test func windowsFollowTheGridAndCountEachBeaconAndAddress() {
        var aggregator = WindowAggregator(windowMicros: 1_000_000)
        var closed: [ClosedWindow] = []
        let base: Int64 = 1_700_000_000_000_000
        let inputs = [
            observation(base + 100, rssi: -60), observation(base + 200, rssi: -70), observation(base + 300, rssi: -65, address: 0xB2),
            observation(base + 999_999, rssi: -50, minor: 2),
            observation(base + 1_000_000, rssi: -80),
        ]
        for input in inputs {
            aggregator.advance(to: input.timeMicros) { closed.append($0) }
            aggregator.add(input)
        }
        if let last = aggregator.flush() { closed.append(last) }

        #expect(closed.count == 2)
        #expect(closed[0].startMicros == base && closed[0].endMicros == base + 1_000_000)
        let first = closed[0].sightings
        #expect(first.map(\.count) == [2, 1, 1])  // (minor 1, A1), (minor 1, B2), (minor 2, A1)
        #expect(first[0].rssiMax == -60)
        #expect(first[0].uuid == "494E5445-4C4C-495F-524F-434B535F4857")
        #expect(first[0].address == "00:00:00:00:00:A1")
        #expect(first[0].rssi == -65)  // the mean of -60 and -70
        #expect(first[2].minor == 2)
        #expect(closed[1].sightings.map(\.count) == [1])
        #expect(closed.flatMap(\.sightings).reduce(0) { $0 + $1.count } == inputs.count)
    }

    @Test func silenceProducesEmptyWindowsUpToTheCap() {
        var aggregator = WindowAggregator(windowMicros: 1_000_000, maximumEmptyWindows: 3)
        var closed: [ClosedWindow] = []
        aggregator.add(observation(0, rssi: -60))
        aggregator.advance(to: 2_500_000) { closed.append($0) }
        #expect(closed.map(\.startMicros) == [0, 1_000_000])
        #expect(closed[1].sightings.isEmpty)
        aggregator.advance(to: 100_000_000) { closed.append($0) }
        // The window 2 s… closes, then at most 3 empty ones, then a jump to 100 s.
        #expect(closed.map(\.startMicros) == [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000, 5_000_000])
        #expect(aggregator.windowStart == 100_000_000)
    }

    @Test func filteredMeanDropsTheExtremesFromFiveSamples() {
        var aggregator = WindowAggregator(windowMicros: 1_000_000)
        for rssi in [-60, -61, -62, -30, -95] { aggregator.add(observation(10, rssi: rssi)) }
        let window = aggregator.flush()
        #expect(window?.sightings.first?.rssi == -61)
        #expect(window?.sightings.first?.rssiMax == -30)
        #expect(window?.sightings.first?.count == 5)
    }

    @Test func distanceComesFromTheFilteredMeanAndTheMeasuredPower() {
        var aggregator = WindowAggregator(windowMicros: 1_000_000)
        aggregator.add(observation(10, rssi: -79))  // measured power -59: 20 dB weaker, 10 m with exponent 2
        aggregator.add(observation(20, rssi: -59, minor: 2))
        let sightings = aggregator.flush()?.sightings ?? []
        #expect(sightings.map(\.distance) == [10, 1])
    }

    @Test func filterAppliesFormatUUIDRSSIAndAddress() {
        let other = BeaconUUID("00000000-0000-0000-0000-000000000001")!
        var filter = BeaconFilter(allowedUUIDs: [uuid], minimumRSSI: -90, deniedAddresses: [BluetoothAddress("00:00:00:00:00:B2")!])
        #expect(filter.admits(observation(0, rssi: -60)))
        #expect(!filter.admits(observation(0, rssi: -95)))
        #expect(!filter.admits(observation(0, rssi: -60, address: 0xB2)))
        var foreign = observation(0, rssi: -60)
        foreign.identity = BeaconIdentity(uuid: other, major: 7, minor: 1)
        #expect(!filter.admits(foreign))
        filter.formats = BeaconFormat.Set([.eddystoneUID])
        #expect(!filter.admits(observation(0, rssi: -60)))
    }
}
