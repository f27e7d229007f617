import ArgumentParser
import Foundation
import Planner
import Simulator
import Topology

/// `beaconfleet calibrate`: the gateways' radio calibration fitted offline, from recorded
/// sightings of the venue's region beacons or from the tetam tracks (see docs/calibration.md).
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit each gateway's RSSI offset and path-loss exponent from recorded sightings of the venue's beacons.",
        discussion: """
            RECORDING: JSON Lines of sightings batches, one per line as published on \
            P/v1/gateways/GW/sightings: the payload alone (naming its gateway) or 'TOPIC PAYLOAD' \
            as `mosquitto_sub -v -t 'beaconfleet/v1/gateways/+/sightings'` prints it. The fit is \
            the coordinator's (docs/calibration.md). --tetam DIR instead fits the tetam sensors \
            jointly with the beacon's estimated positions, without the camera truth.

            Examples:
              beaconfleet calibrate --topology topology/museum sightings.jsonl
              beaconfleet calibrate --tetam ../shared/data/datasets/tetam-tracks --json
            """)

    @Argument(help: "Recorded sightings (JSON Lines).")
    var recordings: [String] = []

    @Option(name: .long, help: "The venue directory (its gateways and region beacons).")
    var topology: String?

    @Option(name: .long, help: "Fit the tetam-tracks sensors from the sightings alone (the directory holding cnf/ and trk/).")
    var tetam: String?

    @Flag(name: .long, help: "Print the fit as JSON.")
    var json = false

    func validate() throws {
        if tetam == nil {
            guard topology != nil else { throw ValidationError("calibrate needs --topology DIR (or --tetam DIR)") }
            guard !recordings.isEmpty else {
                throw ValidationError("calibrate needs at least one recording (JSON Lines of sightings batches)")
            }
        } else if topology != nil || !recordings.isEmpty {
            throw ValidationError("--tetam takes no --topology and no recordings")
        }
    }

    func run() throws {
        if let tetam {
            let replay = TetamReplay(dataset: try TetamDataset.load(directory: URL(fileURLWithPath: tetam, isDirectory: true)))
            let fit = try TetamSelfCalibration.fit(replay, tracks: replay.dataset.tracks.map(\.name))
            if json { return try print(Self.encode(fit)) }
            print(
                "sensor       offset dB  exponent   (fitted on \(fit.tracks.count) tracks' sightings, \(fit.rounds) rounds, no camera truth)"
            )
            for (index, sensor) in replay.dataset.sensors.enumerated() {
                print(
                    String(
                        format: "%@ %+8.2f  %8.2f", sensor.name.padding(toLength: 12, withPad: " ", startingAt: 0), fit.offsets[index],
                        fit.exponents[index]))
            }
            return
        }
        let venue = try Topology.load(directory: URL(fileURLWithPath: topology!, isDirectory: true))
        var calibration = RecordedCalibration(topology: venue)
        for path in recordings { try calibration.read(file: URL(fileURLWithPath: path)) }
        let fit = calibration.fit()
        if json { return try print(Self.encode(fit)) }
        print(
            "\(calibration.batches) batches, \(calibration.regionSightings) sightings of region beacons"
                + (calibration.unknownGatewayBatches > 0
                    ? ", \(calibration.unknownGatewayBatches) batches of gateways not in the topology" : ""))
        print(fit.text)
    }

    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
