import Foundation
import Simulator
import Topology

extension SimulateCommand {
    /// `simulate --offline --topology DIR --gain-error DB`: mis-set gateway gains and self-calibration.
    func runGainError(_ gainError: Double) throws {
        let venue = try Topology.load(directory: URL(fileURLWithPath: topology!, isDirectory: true))
        var configuration = GainCalibrationSimulation.Configuration()
        configuration.tags = clients
        configuration.duration = SimulationDuration.seconds(duration)!
        configuration.seed = seed
        configuration.gainError = gainError
        let report = try GainCalibrationSimulation(topology: venue, configuration: configuration).run()
        try emit(report, text: report.text)
    }
}
