import Foundation
import Testing
import Topology

@testable import Planner

/// ``FastLog`` against libm over the range the estimator's grid uses it in: squared distances from
/// the model's minimum (0.25 m², and below) to a few kilometres, and 1 + z² for residuals up to
/// thousands of Cauchy units.
@Suite struct FastLogTests {
    /// Error bound on log₂ x: the polynomial's truncation (< 3e-8 in ln) and rounding inside it,
    /// plus one rounding of the result (half an ulp of a `Float` near |log₂ x|, 6e-8 of it).
    static func bound(_ x: Double) -> Double { 4e-7 + 6e-8 * abs(log2(x)) }

    @Test func log2MatchesLibmOnRandomInputsAcrossTheGridsRange() {
        var random = SplitMix64(seed: 16)
        var worst = 0.0
        var worstAt = 0.0
        for _ in 0..<200_000 {
            // Log-uniform over [1e-4, 1e8]: every exponent, every mantissa.
            let exponent = -4 + 12 * Double(random.next() >> 11) / Double(1 << 53)
            let x = Float(pow(10, exponent))
            let error = abs(Double(FastLog.log2(x)) - log2(Double(x))) / Self.bound(Double(x))
            if error > worst {
                worst = error
                worstAt = Double(x)
            }
        }
        #expect(worst < 1, "log2(\(worstAt)) is off by \(worst) × its bound")
    }

    @Test func log2IsExactWhereTheAnswerIsAnIntegerAndAccurateAtTheReductionsSeams() {
        for power in -20...40 {
            let x = Float(sign: .plus, exponent: power, significand: 1)
            #expect(FastLog.log2(x) == Float(power))
        }
        // Mantissas either side of √2, where the reduction moves a factor of two into the exponent.
        for x: Float in [1.414_213_4, 1.414_213_6, 0.707_106_7, 0.707_106_8, 2.828_427, 1, 1.000_001, 1.999_999] {
            #expect(abs(Double(FastLog.log2(x)) - log2(Double(x))) < Self.bound(Double(x)), "log2(\(x))")
        }
    }

    /// The estimator's answers with ``PositionArithmetic/fast`` against the libm reference on
    /// random anchors and noisy readings, one level and two: same level, same evidence counts, and
    /// positions within a millimetre.
    @Test func fastEstimatesMatchTheLibmReference() throws {
        var random = SplitMix64(seed: 7)
        func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * Double(random.next() >> 11) / Double(1 << 53)
        }
        let anchors = (0..<12).map { index in
            PositionAnchor(
                id: "a\(index)", x: uniform(0...60), y: uniform(0...40), height: uniform(2...4), level: index % 4 == 3 ? "L1" : "L0",
                rssiOffset: uniform(-3...3), exponent: index % 3 == 0 ? uniform(1.6...2.8) : nil)
        }
        let areas = [
            PositionArea(level: "L0", minX: -2, minY: -2, maxX: 62, maxY: 42),
            PositionArea(level: "L1", minX: -2, minY: -2, maxX: 62, maxY: 42),
        ]
        let fast = try PositionEstimator(anchors: anchors, areas: areas)
        var reference = fast
        reference.arithmetic = .libm
        #expect(fast.arithmetic == .fast)
        var compared = 0
        for trial in 0..<300 {
            let x = uniform(0...60)
            let y = uniform(0...40)
            var observations: [PositionObservation] = []
            for (index, anchor) in anchors.enumerated() where random.next() % 3 != 0 {
                let floors = anchor.level == "L0" ? 0.0 : 1.0
                let dz = anchor.height + 4 * floors - 1.2
                let distance = ((anchor.x - x) * (anchor.x - x) + (anchor.y - y) * (anchor.y - y) + dz * dz).squareRoot()
                let rssi = -59 - 20 * log10(max(distance, 0.5)) - 15 * floors + uniform(-12...12)
                observations.append(PositionObservation(anchor: index, rssi: rssi.rounded(), count: 1 + Int(random.next() % 4)))
            }
            // Every third trial starts from a prior, as a tracked client's second window does.
            let prior =
                trial % 3 == 0
                ? PositionState(x: x + uniform(-3...3), y: y + uniform(-3...3), variance: uniform(0.5...9), time: 0, level: 0) : nil
            let time = Date(timeIntervalSinceReferenceDate: 1)
            let exact = reference.update(prior, observations: observations, at: time)
            let quick = fast.update(prior, observations: observations, at: time)
            #expect((exact == nil) == (quick == nil))
            guard let exact, let quick else { continue }
            compared += 1
            #expect(exact.level == quick.level)
            #expect(exact.anchorsUsed == quick.anchorsUsed && exact.rejected == quick.rejected)
            #expect(
                hypot(exact.x - quick.x, exact.y - quick.y) < 1e-3, "trial \(trial): (\(exact.x), \(exact.y)) vs (\(quick.x), \(quick.y))")
            #expect(abs(exact.confidence - quick.confidence) < 1e-3)
        }
        #expect(compared > 250)
    }
}
