import Foundation
import Testing
import Topology

@testable import Planner

/// ``FastExp`` against libm over the range the posterior's moments use it in, and past it.
@Suite struct FastExpTests {
    @Test func expMatchesLibmWithin1e12RelativeOnRandomInputs() {
        var random = SplitMix64(seed: 16)
        var worst = 0.0
        var worstAt = 0.0
        for n in 0..<400_000 {
            // Half over the posterior's [−36, 0], half over the whole domain [−700, 0].
            let unit = Double(random.next() >> 11) / Double(1 << 53)
            let x = -(n.isMultiple(of: 2) ? 36 : 700) * unit
            let error = abs(FastExp.exp(x) - Foundation.exp(x)) / Foundation.exp(x)
            if error > worst {
                worst = error
                worstAt = x
            }
        }
        #expect(worst < 1e-12, "exp(\(worstAt)) is off by \(worst) relative")
    }

    @Test func expIsExactAtZeroAndAccurateAtTheReductionsSeams() {
        #expect(FastExp.exp(0) == 1)
        // Where x·log₂e is an integer and where it lies halfway between two: n changes there.
        for k in 0...60 {
            for x in [-Double(k) * M_LN2, -(Double(k) + 0.5) * M_LN2, -(Double(k) + 0.5) * M_LN2 + 1e-12, -(Double(k) + 0.5) * M_LN2 - 1e-12] where x <= 0 {
                let error = abs(FastExp.exp(x) - Foundation.exp(x)) / Foundation.exp(x)
                #expect(error < 1e-12, "exp(\(x)) is off by \(error) relative")
            }
        }
    }
}
