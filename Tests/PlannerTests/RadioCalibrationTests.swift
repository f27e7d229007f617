import Foundation
import Planner
import Testing
import Topology

/// The self-calibration's fit on synthetic venues whose truth is known.
@Suite struct RadioCalibrationTests {
    /// A 40 × 30 m hall: gateways on a 10 m grid, beacons on a 5 m grid, every gateway with its own
    /// gain (±8 dB) and, when asked, its own exponent; pair means carry seeded static shadowing
    /// and are heard only above the sensitivity. Beacons send −59 dBm at 1 m (0 dBm transmit
    /// power): the nearest beacons of the weakest gateway are heard well above the fit's RSSI
    /// floor (see `weakGatewaysNearTheSensitivityAreNotUsed`).
    struct Hall {
        var gateways: [RadioCalibration.GatewayInput] = []
        var beacons: [RadioCalibration.BeaconInput] = []
        var gains: [Double] = []
        var exponents: [Double] = []
        var random = SplitMix64(seed: 17)

        init(exponents range: ClosedRange<Double> = 2.2...2.2) {
            for x in stride(from: 5.0, through: 35, by: 10) {
                for y in stride(from: 5.0, through: 25, by: 10) {
                    gateways.append(.init(id: "gw-\(gateways.count)", x: x, y: y, height: 3, level: "G"))
                    gains.append(uniform(-8...8))
                    exponents.append(uniform(range))
                }
            }
            for x in stride(from: 0.0, through: 40, by: 5) {
                for y in stride(from: 0.0, through: 30, by: 5) {
                    beacons.append(.init(id: "b-\(beacons.count)", x: x, y: y, height: 2.5, level: "G", power: -59, powerFixed: false))
                }
            }
        }

        mutating func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + Double(random.next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
        }

        mutating func normal() -> Double {
            let u1 = max(Double(random.next() >> 11) / Double(1 << 53), 1e-12)
            let u2 = Double(random.next() >> 11) / Double(1 << 53)
            return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
        }

        /// The true mean RSSI of gateway `g` hearing beacon `b` (before the gateway's gain): path
        /// loss from where the beacon really is (`moved` beacons are elsewhere) plus seeded static
        /// shadowing.
        mutating func mean(_ g: Int, _ b: Int, power: Double, shadowing: Double, moved: [Int: (x: Double, y: Double)]) -> Double {
            let place = moved[b] ?? (beacons[b].x, beacons[b].y)
            let dx = gateways[g].x - place.x
            let dy = gateways[g].y - place.y
            let d = (dx * dx + dy * dy + 0.25).squareRoot()
            return power - 10 * exponents[g] * log10(d) + shadowing * normal()
        }

        /// Pair means as the gateways would aggregate them; `moved` beacons are really elsewhere.
        mutating func pairs(shadowing: Double, sensitivity: Double = -95, moved: [Int: (x: Double, y: Double)] = [:]) -> [CalibrationPair] {
            var result: [CalibrationPair] = []
            for g in gateways.indices {
                for b in beacons.indices {
                    let rssi = gains[g] + mean(g, b, power: -59, shadowing: shadowing, moved: moved)
                    if rssi >= sensitivity { result.append(CalibrationPair(gateway: g, beacon: b, rssi: rssi, readings: 100)) }
                }
            }
            return result
        }

        /// Pairs as the calibration memory keeps them over `windows` windows: each window's mean
        /// (the pair's mean with seeded static shadowing, plus `noise` dB) is heard only above the
        /// sensitivity, so far pairs are heard in part of the windows and their means read hot.
        /// Beacons send `power` at 1 m.
        mutating func windowedPairs(
            power: Double, shadowing: Double, noise: Double = 1.6, windows: Int = 300, sensitivity: Double = -95,
            moved: [Int: (x: Double, y: Double)] = [:]
        ) -> [CalibrationPair] {
            var result: [CalibrationPair] = []
            for g in gateways.indices {
                for b in beacons.indices {
                    let mean = mean(g, b, power: power, shadowing: shadowing, moved: moved)
                    var heard = 0.0, sum = 0.0, squares = 0.0
                    for _ in 0..<windows {
                        let reading = mean + noise * normal()
                        guard reading >= sensitivity else { continue }
                        heard += 1
                        sum += reading + gains[g]
                        squares += (reading + gains[g]) * (reading + gains[g])
                    }
                    guard heard > 0 else { continue }
                    let rssi = sum / heard
                    result.append(
                        CalibrationPair(
                            gateway: g, beacon: b, rssi: rssi, readings: 10 * heard, windows: heard, gatewayWindows: Double(windows),
                            deviation: max(squares / heard - rssi * rssi, 0).squareRoot()))
                }
            }
            return result
        }

        /// Expects `fit` to have recovered every gateway: usable, its offset within 2 dB of its
        /// gain and its exponent within 0.2 of the hall's 2.2.
        func expectRecovered(by fit: RadioCalibration, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
            for (g, gateway) in gateways.enumerated() {
                guard let result = fit.gateway(gateway.id) else {
                    Issue.record("\(gateway.id): no fit", sourceLocation: sourceLocation)
                    continue
                }
                #expect(result.usable, sourceLocation: sourceLocation)
                #expect(
                    abs(result.offset - gains[g]) < 2, "\(gateway.id): offset \(result.offset) against \(gains[g])",
                    sourceLocation: sourceLocation)
                #expect(abs(result.exponent - 2.2) < 0.2, "\(gateway.id): exponent \(result.exponent)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func recoversOffsetsAndTheExponent() {
        var hall = Hall()
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: hall.pairs(shadowing: 2))
        hall.expectRecovered(by: fit)
    }

    /// With an exponent of its own per gateway, offset and exponent trade off over the few
    /// distances a gateway hears, and the exponent is pulled towards the venue's pooled one
    /// (``CalibrationConfiguration/exponentPrior``): the RSSI expected at the distances it hears
    /// stays within 4 dB (on this hall the worst is 3.7 dB, at 3 m).
    @Test func predictsEachGatewayWithItsOwnExponent() {
        var hall = Hall(exponents: 1.9...2.6)
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: hall.pairs(shadowing: 2))
        for (g, gateway) in hall.gateways.enumerated() {
            let result = try! #require(fit.gateway(gateway.id))
            for d in [3.0, 5.0, 8.0] {
                let truth = hall.gains[g] - 10 * hall.exponents[g] * log10(d)
                let fitted = result.offset - 10 * result.exponent * log10(d)
                #expect(abs(fitted - truth) < 4, "\(gateway.id) at \(d) m: \(fitted) against \(truth)")
            }
        }
    }

    @Test func flagsAMovedBeaconAndIgnoresIt() {
        var hall = Hall()
        let moved = 30  // moved 20 m away from where the topology says it is
        let truth = hall.beacons[moved]
        let pairs = hall.pairs(shadowing: 2, moved: [moved: (x: truth.x > 20 ? truth.x - 20 : truth.x + 20, y: truth.y)])
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: pairs)
        #expect(fit.beacon(truth.id)?.flags.contains("moved") == true)
        let others = fit.beacons.filter { $0.flags.contains("moved") }.count
        #expect(others <= 2, "beacons flagged: \(fit.beacons.filter { $0.flags.contains("moved") }.map(\.id))")
        for (g, gateway) in hall.gateways.enumerated() {
            #expect(abs((fit.gateway(gateway.id)?.offset ?? 99) - hall.gains[g]) < 2.5)
        }
    }

    /// Beacons of −70 dBm at 1 m fade out within 8-25 m of a gateway: the pairs heard in part of
    /// the windows read hot, and by the complete radius alone (the fit without the windows heard)
    /// the exponent comes out flat and every offset low. With the windows heard, the fit corrects
    /// them and bounds the beacons not heard.
    @Test func correctsPairsNearTheSensitivity() {
        var hall = Hall()
        for b in hall.beacons.indices { hall.beacons[b].power = -70 }
        let pairs = hall.windowedPairs(power: -70, shadowing: 3)
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: pairs)
        hall.expectRecovered(by: fit)
        #expect(fit.beacons.allSatisfy { !$0.flags.contains("moved") }, "\(fit.beacons.filter { $0.flags.contains("moved") }.map(\.id))")
        // The same means without the windows heard: the old, biased fit.
        let bare = pairs.map { CalibrationPair(gateway: $0.gateway, beacon: $0.beacon, rssi: $0.rssi, readings: $0.readings) }
        let biased = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: bare)
        let worst = { (fit: RadioCalibration) in
            hall.gateways.indices.map { abs((fit.gateway(hall.gateways[$0].id)?.offset ?? 99) - hall.gains[$0]) }.max() ?? 99
        }
        #expect(worst(fit) < worst(biased), "censored \(worst(fit)) dB against \(worst(biased)) dB")
    }

    @Test func flagsAMovedBeaconNearTheSensitivity() {
        var hall = Hall()
        for b in hall.beacons.indices { hall.beacons[b].power = -70 }
        let moved = 30
        let truth = hall.beacons[moved]
        let pairs = hall.windowedPairs(
            power: -70, shadowing: 3, moved: [moved: (x: truth.x > 20 ? truth.x - 20 : truth.x + 20, y: truth.y)])
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: pairs)
        #expect(fit.beacon(truth.id)?.flags.contains("moved") == true, "\(String(describing: fit.beacon(truth.id)))")
        #expect(fit.beacons.filter { $0.flags.contains("moved") }.count <= 2)
        for (g, gateway) in hall.gateways.enumerated() {
            #expect(abs((fit.gateway(gateway.id)?.offset ?? 99) - hall.gains[g]) < 2.5)
        }
    }

    @Test func windowCountsTheWindowsHeard() {
        var window = CalibrationWindow(halfLife: 1e9)
        for second in 0..<96 {
            // Beacon 1 in every window of gateway 0; beacon 2 in every fourth, at −90 or −92.
            window.add(gateway: 0, beacon: 1, rssi: -60, count: 10, time: Double(second))
            if second % 4 == 0 { window.add(gateway: 0, beacon: 2, rssi: second % 8 == 0 ? -90 : -92, count: 10, time: Double(second)) }
        }
        let pairs = window.snapshot(at: 96)
        let far = try! #require(pairs.first { $0.beacon == 2 })
        #expect(abs((far.heardShare ?? 0) - 0.25) < 1e-6)
        #expect(abs((far.deviation ?? 0) - 1) < 1e-6 && abs(far.rssi + 91) < 1e-6)
        #expect(abs((pairs.first { $0.beacon == 1 }?.heardShare ?? 0) - 1) < 1e-6)
    }

    @Test func keepsDeclaredValuesAndBounds() {
        var hall = Hall()
        hall.gateways[0].fixedOffset = 3
        hall.gateways[0].fixedExponent = 2.5
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: hall.pairs(shadowing: 2))
        let first = try! #require(fit.gateway("gw-0"))
        #expect(first.offset == 3 && first.exponent == 2.5 && first.flags.contains("fixed"))
        for gateway in fit.gateways {
            #expect((1.5...4.5).contains(gateway.exponent) && abs(gateway.offset) <= 20)
        }
    }

    @Test func withoutEnoughEvidenceAFitIsNotUsed() {
        var hall = Hall()
        let pairs = hall.pairs(shadowing: 2).filter { $0.beacon < 2 }
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: pairs)
        #expect(fit.gateways.allSatisfy { !$0.usable && $0.flags.contains("insufficient") && $0.offset == 0 })
    }

    @Test func windowDecaysAndStaysBounded() {
        var window = CalibrationWindow(halfLife: 60)
        for second in 0..<600 {
            window.add(gateway: 0, beacon: 1, rssi: second < 300 ? -80 : -60, count: 10, time: Double(second))
        }
        let pair = try! #require(window.snapshot(at: 600).first)
        #expect(window.count == 1)
        #expect(pair.rssi > -61, "the last five minutes dominate a 60 s half-life: \(pair.rssi)")
        window.prune(at: 600 + 60 * 20)
        #expect(window.count == 0)
    }

    /// A gateway that hears its nearest beacons only near the sensitivity cannot be fitted without
    /// bias (only the lucky readings are heard): too few pairs pass the RSSI floor, and the fit is
    /// not used for it.
    @Test func weakGatewaysNearTheSensitivityAreNotUsed() {
        var hall = Hall()
        hall.gains = hall.gains.map { _ in -25 }
        let fit = RadioCalibration.fit(gateways: hall.gateways, beacons: hall.beacons, pairs: hall.pairs(shadowing: 2))
        #expect(fit.gateways.allSatisfy { !$0.usable && $0.flags.contains("insufficient") }, "\(fit.gateways)")
    }
}
