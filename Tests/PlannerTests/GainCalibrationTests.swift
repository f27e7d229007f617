import Planner
import Simulator
import TestSupport
import Testing
import Topology

/// Issue 17's mis-set gains: the museum's gateways off by a seeded ±8 dB, five minutes of
/// sightings of its region beacons (with 3 dB of static multipath per gateway–beacon pair)
/// through the coordinator's engine.
///
/// The issue asks for every offset within 2 dB, and that is what this test holds on seeds 1–8.
/// Worst gateway per seed with the censored fit: 1.21, 1.97, 1.65, 0.62, 0.74, 1.13, 1.53, 1.18 dB
/// (before it: 1.64, 1.76, 0.74, 4.01, 2.21, 3.90, 3.12, 1.10). Seed 2 passes by 0.03 dB: what is
/// left is the venue-wide exponent's own uncertainty (2.11–2.30 against the simulation's 2.2), set
/// by the static multipath of the few beacons each gateway hears, which more minutes of sightings
/// do not average out. See docs/calibration.md, "Mis-set gains".
@Suite struct GainCalibrationTests {
    @Test(arguments: Array(1...8) as [UInt64])
    func recoversTheOffsetsIn5Minutes(seed: UInt64) async throws {
        try await heavyWork {
            var configuration = GainCalibrationSimulation.Configuration()
            configuration.tags = 1
            configuration.duration = 300
            configuration.seed = seed
            configuration.gainError = 8
            let simulation = try GainCalibrationSimulation(topology: try PlannerFixture.example("museum"), configuration: configuration)
            let gains = simulation.gains
            let (run, fit) = try simulation.run(name: "self-calibrated", gains: gains, calibrate: true)
            let result = try #require(fit)
            // The tag is located every window once heard, and where it is, not merely somewhere.
            #expect(run.samples > 250, "\(run.samples) windows with an estimate of 300")
            #expect(try #require(run.medianError) < 6)
            var errors: [Double] = []
            for (g, gateway) in simulation.topology.gateways.enumerated() {
                let fitted = try #require(result.gateway(gateway.id))
                #expect(fitted.usable, "\(gateway.id): \(fitted.flags)")
                errors.append(abs(fitted.offset - gains[g]))
                #expect(abs(fitted.offset - gains[g]) < 2, "\(gateway.id): fitted \(fitted.offset) dB, true \(gains[g]) dB")
            }
            let before = (gains.map { $0 * $0 }.reduce(0, +) / Double(gains.count)).squareRoot()
            let after = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
            #expect(after < before, "RMS offset error \(after) dB against \(before) dB uncorrected")
        }
    }
}
