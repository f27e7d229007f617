import Foundation
import Simulator
import Topology

extension SimulateCommand {
    /// The venue of `--topology`, with `--areas` as its `areas.csv` when given (copied beside its
    /// other files into a temporary directory and loaded from there).
    func loadPresenceVenue() throws -> Topology {
        let directory = URL(fileURLWithPath: topology!, isDirectory: true)
        guard let areas else { return try Topology.load(directory: directory) }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-presence-\(getpid())", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: copy) }
        try VenueWithAreas.write(directory, areas: URL(fileURLWithPath: areas), into: copy)
        return try Topology.load(directory: copy)
    }

    /// `--pause`'s seconds: `MIN-MAX` or `SECONDS`, from 0 to 3600 with MIN ≤ MAX; `nil` otherwise.
    static func pauses(_ text: String) -> ClosedRange<Double>? {
        ClosedRange<Double>(parsing: text, separator: "-").flatMap { $0.lowerBound >= 0 && $0.upperBound <= 3600 ? $0 : nil }
    }

    /// `--offline --presence tags|phones`: room and floor presence on simulated walks.
    func runPresence(_ clients: PresenceSimulation.Clients) async throws {
        let venue = try loadPresenceVenue()
        if let flatWalk {
            let report = try FlatWalkPresence(directory: URL(fileURLWithPath: flatWalk, isDirectory: true)).run(topology: venue)
            return try emit(report, text: report.text)
        }
        var configuration = PresenceSimulation.Configuration(
            clients: self.clients, duration: SimulationDuration.seconds(duration)!, seed: seed, kind: clients,
            family: try phoneFamily(), pauses: pause.flatMap(Self.pauses) ?? Walker.defaultPauses)
        if clients == .tags { configuration.tick = 0.2 }
        let simulation = try PresenceSimulation(topology: venue, configuration: configuration)
        var lines: [String] = []
        let trace: ((PresenceSimulation.Sample) -> Void)? =
            self.trace == nil
            ? nil
            : { sample in
                func text(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "" }
                func room(_ index: Int?) -> String { index.map { venue.areas[$0].id } ?? "" }
                lines.append(
                    [
                        String(sample.client), String(format: "%.2f", sample.time), text(sample.truth.x), text(sample.truth.y),
                        sample.truth.level,
                        room(sample.truthRoom), text(sample.estimate?.x), text(sample.estimate?.y), sample.estimate?.level ?? "",
                        text(sample.confidence), room(sample.estimateRoom), room(sample.shownRoom), sample.shownLevel ?? "",
                    ].joined(separator: ","))
            }
        let report = try await simulation.run(trace: trace)
        if let path = self.trace {
            let header = "client,time,x,y,level,room,estimateX,estimateY,estimateLevel,confidence,estimateRoom,shownRoom,shownLevel"
            try writeCSV([header] + lines, to: path, option: "--trace")
        }
        try emit(report, text: report.text)
    }
}
