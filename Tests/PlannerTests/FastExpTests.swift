import Foundation
import Testing
import Topology

@testable import Planner

/// ``FastExp`` against libm over the range the posterior's moments use it in, and below it.
@Suite struct FastExpTests {
    /// The relative error of each lane against `Foundation.exp` in `Double`.
    private func errors(_ x: SIMD4<Float>) -> SIMD4<Double> {
        let fast = FastExp.exp(x)
        var errors = SIMD4<Double>()
        for lane in 0..<4 {
            let exact = Foundation.exp(Double(x[lane]))
            errors[lane] = abs(Double(fast[lane]) - exact) / exact
        }
        return errors
    }

    @Test func expMatchesLibmWithin2point5e7RelativeOnRandomInputs() {
        var random = SplitMix64(seed: 16)
        var worst = 0.0
        var worstAt: Float = 0
        for n in 0..<100_000 {
            // Half near the peak, [−36, 0], half over the whole domain [−87, 0].
            var x = SIMD4<Float>()
            for lane in 0..<4 { x[lane] = -Float(n.isMultiple(of: 2) ? 36 : 87) * Float(random.next() >> 40) / Float(1 << 24) }
            let error = errors(x)
            for lane in 0..<4 where error[lane] > worst {
                worst = error[lane]
                worstAt = x[lane]
            }
        }
        #expect(worst < 2.5e-7, "exp(\(worstAt)) is off by \(worst) relative")
    }

    @Test func expIsExactAtZeroAndAccurateAtTheReductionsSeams() {
        #expect(FastExp.exp(SIMD4(repeating: 0)) == SIMD4(repeating: 1))
        // Where x·log₂e is an integer and where it lies halfway between two: n changes there.
        for k in 0...125 {
            let ln2 = Float(M_LN2)
            let x = SIMD4<Float>(
                -Float(k) * ln2, -(Float(k) + 0.5) * ln2, (-(Float(k) + 0.5) * ln2).nextUp, (-(Float(k) + 0.5) * ln2).nextDown)
            let error = errors(x.replacing(with: 0, where: x .> 0))
            #expect(error.max() < 2.5e-7, "exp(\(x)) is off by \(error) relative")
        }
    }

    @Test func belowTheNormalFloatsItAnswersTheFloor() {
        let far = FastExp.exp(SIMD4(-87, -100, -1_000, -.infinity))
        for lane in 0..<4 {
            #expect(far[lane] > 0 && far[lane] < 2e-38 && far[lane].isNormal)
        }
    }
}
