import ArgumentParser
import Foundation
import MQTT
import Planner
import Simulator
import Topology
import WireProtocol

/// `beaconfleet simulate`: walking clients for quality measurement (offline), the replay of the
/// real tetam tracks, and walkers live over MQTT against a running coordinator (`--broker`).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Measure planning quality with simulated walkers, or position error on real tracks.",
        discussion: """
            --offline: phones that follow iOS's rules (../shared/IOS.md) walk the venue's graph: \
            RegionSync (the phone library) on a fake iOS, each phone's radio and iOS timings drawn \
            from a family (--family ios: IOS.md's ranges, none told to the coordinator; \
            --family declared: the venue files' radio and a prompt iOS; --phones changes one \
            parameter), the app suspended between region events unless --foreground. Coverage counts arrivals (within a region's radius) \
            whose region was monitored at some moment since its beacon's first detection on that \
            approach; beside it churn and wakes per 100 m, for the frontier planner (the \
            coordinator's), nearest-N, the first set only and a clairvoyant that knows the walk, over all phones and per \
            phone with its condition (median and worst). The same seed gives the same report.

            --tetam DIR: replays the nine real tetam tracks as twelve gateways' sightings and \
            reports position error against the camera truth (median, p90) for the estimator and a \
            weighted-centroid baseline; with --topology (the tetam room) the estimator settings \
            come from its venue.conf, the same windows also run through a coordinator engine built \
            from it (rows coordinator-uncalibrated and coordinator-self-calibrated), and the \
            coverage of the regions the beacon truly entered is added.

            --broker URL: walkers over MQTT against a running coordinator, either as phones \
            (reports with ranged beacons, enter/exit events and their monitored list, applying \
            each regions message they receive) or as tags heard by the venue's simulated gateways \
            (sightings per the contract). Prints the live coverage and churn it observes every \
            5 simulated seconds and at the end.

            Examples:
              beaconfleet simulate --offline --topology topology/museum
              beaconfleet simulate --offline --topology topology/mall --clients 20 \\
                  --duration 30m --seed 7 --json
              beaconfleet simulate --offline --topology topology/mall --foreground
              beaconfleet simulate --offline --topology topology/mall \\
                  --phones power=-88...-70 --misses misses.csv
              beaconfleet simulate --offline --presence phones --topology topology/museum \\
                  --areas topology/museum/rooms/areas.csv --pause 30-120
              beaconfleet simulate --tetam ../shared/data/datasets/tetam-tracks
              beaconfleet simulate --tetam ../shared/data/datasets/tetam-tracks \\
                  --topology topology/tetam --json
              beaconfleet simulate --broker mqtt://localhost:1883 \\
                  --topology topology/museum --clients 50
              beaconfleet simulate --broker mqtt://localhost:1883 --topology topology/mall \\
                  --clients 200 --mode tags --duration 10m --speedup 5
            """
    )

    @Flag(
        name: .long,
        help:
            "Run phones that follow iOS's rules (../shared/IOS.md), suspended unless --foreground, without a broker: coverage of arrivals, churn and wakes per 100 m for the frontier planner, nearest-N, the first set and a clairvoyant."
    )
    var offline = false

    @Flag(
        name: .long,
        help: "--offline, --broker phones: keep the app awake (always ranging, reporting and advertising) instead of suspended.")
    var foreground = false

    @Flag(
        name: .customLong("shared-connection"),
        help:
            "--broker phones: every report on the simulation's one connection, not on a connection per wake of each suspended phone (IOS.md: each wake reconnects)."
    )
    var sharedConnection = false

    @Flag(
        name: .customLong("report-copies"),
        help:
            "--broker phones: send each report also at QoS 0, on a second connection of the wake, as RegionSync's reportCopy option does (for a NATS cluster)."
    )
    var reportCopies = false
    @Option(
        name: .customLong("client-prefix"),
        help: "--broker phones: the prefix of the phones' client ids (PREFIX-0, PREFIX-1, …), so that two simulations can walk one venue.")
    var clientPrefix: String = "sim-phone"

    @Option(
        name: .long,
        help:
            "--offline, --broker phones: the phones' radios and iOS timings: ios (each phone drawn from IOS.md's ranges: beacon powers −80…−59 dBm, exponent 2–3, shadowing 3–8 dB lasting 1–10 s, enters up to 0–15 s late, exits after 30–90 s, 5–30 s wakes, 16–20 slots) or declared (the venue files' radio and a prompt iOS)."
    )
    var family: String = "ios"

    @Option(
        name: .customLong("phones"),
        help:
            "--offline, --broker phones: change one parameter of the family, NAME=VALUE or NAME=LOW...HIGH (repeatable): power, exponent, shadowing (each also =declared), fading, receiver, scan, exit, wake, budget, in-range, lost (the share of enters and exits iOS never delivers); e.g. --phones scan=0 --phones power=declared."
    )
    var phoneSettings: [String] = []

    @Option(
        name: .customLong("app-regions"),
        help: "--offline, --broker phones: slots of the 20 the app's own regions take (default: the family's).")
    var appRegions: Int?

    @Option(
        name: .long,
        help:
            "Run walkers live over MQTT against the coordinator on this broker: mqtt://[user:pass@]host[:port] or mqtts://…; several, comma-separated, are tried in turn."
    )
    var broker: String?

    @Option(name: .customLong("mqtt-version"), help: "Live: MQTT version: 5, 3.1.1, or auto (3.1.1 when the broker refuses 5).")
    var mqttVersion: String = "auto"

    @Option(name: .long, help: "Live: phones (report and apply regions) or tags (heard by simulated gateways).")
    var mode: String = "phones"

    @Option(name: .long, help: "Live: simulated seconds per real second.")
    var speedup: Double = 1

    @Option(name: .long, help: "Live: topic prefix.")
    var prefix: String = "beaconfleet"

    @Option(name: .customLong("ca-file"), help: "Live: CA certificate file for mqtts://.")
    var caFile: String?

    @Option(name: .customLong("cert-file"), help: "Live: client certificate file for mqtts://.")
    var certFile: String?

    @Option(name: .customLong("key-file"), help: "Live: client key file for mqtts://.")
    var keyFile: String?

    @Option(name: .long, help: "Replay the tetam-tracks dataset in this directory (the one holding cnf/ and trk/).")
    var tetam: String?

    @Option(name: .long, help: "The venue directory.")
    var topology: String?

    @Option(name: .long, help: "Number of walking clients (--offline, --broker).")
    var clients: Int = 10

    @Option(name: .long, help: "Random seed: the same seed gives the same walks and radio.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "Simulated time, e.g. 900, 15m, 1h (--offline: per client; --broker: the whole run).")
    var duration: String = "15m"

    @Option(name: .long, help: "Region budget per client (default: --tetam the venue's, else 20; --broker the coordinator's).")
    var budget: Int?

    @Option(name: .long, help: "tetam: comma-separated tracks to fit the radio calibration on (the rest are held out).")
    var train: String?

    @Option(
        name: .long, help: "Planner hysteresis: incumbents stay while ranked within the free slots plus this many (default: the planner's)."
    )
    var margin: Int?

    @Option(
        name: .customLong("swap-threshold"),
        help: "Planner hysteresis: metres by which a region must be nearer than the incumbent it replaces (default: the planner's).")
    var swapThreshold: Double?

    @Option(
        name: .customLong("guard-distance"),
        help: "Planner: regions whose edge is within this many metres are always monitored (default: the planner's).")
    var guardDistance: Double?

    @Option(
        name: .customLong("wake-seconds"),
        help: "Background time a region event gives a phone, seconds (--offline, --broker phones; default: the family's).")
    var wakeSeconds: Double?

    @Option(
        name: .customLong("round-trip"),
        help: "--offline: seconds from a phone's report to the answer it applies, while it is connected (the venue's network, the plan).")
    var roundTrip: Double = 0.2

    @Option(name: .long, help: "--offline: seconds a woken phone takes to connect to the broker, added to its first report's round trip.")
    var connect: Double = 0.5

    @Option(
        name: .customLong("gain-error"),
        help:
            "--offline: tags heard by gateways whose gains are off by a seeded error within ± this many dB; prints the tags' entry coverage calibrated, mis-set and self-calibrated, and each gateway's recovered offset (docs/calibration.md)."
    )
    var gainError: Double?

    @Option(
        name: .long,
        help:
            "--offline: measure room and floor presence instead of planning, for tags heard by the gateways or phones in the foreground: the share of the time the shown room is the true one, false room changes per hour and the time to show a real change, for the coordinator's room filter and the room of the current estimate (the venue needs areas.csv)."
    )
    var presence: String?

    @Option(
        name: .long,
        help:
            "--offline --presence: the venue's rooms from this areas.csv instead of its own (topology/museum/rooms/areas.csv: rooms for presence that leave the example venue's planning as it is)."
    )
    var areas: String?

    @Option(
        name: .customLong("flat-walk"),
        help:
            "--offline --presence tags --topology topology/flat-walk: replay the flat-walk dataset's robot run (this directory) instead of simulated walks."
    )
    var flatWalk: String?

    @Option(
        name: .long,
        help:
            "--offline --presence: seconds each walker stays at each region it reaches, drawn uniformly: MIN-MAX or SECONDS (default 0-20, a passer-by; a museum visitor looks at a gallery for minutes)."
    )
    var pause: String?

    @Option(name: .long, help: "--offline --presence: write every client's every tick (truth, estimate, shown room) as CSV to this file.")
    var trace: String?

    @Option(
        name: .long,
        help:
            "--offline (phones, not --presence): write every missed arrival (strategy, phone, time, region, seconds the app had been asleep or awake, whether its beacon was heard first, regions monitored) as CSV to this file."
    )
    var misses: String?

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    func validate() throws {
        if [offline, tetam != nil, broker != nil].filter({ $0 }).count != 1 {
            throw ValidationError("choose one mode: --offline --topology DIR, --tetam DIR, or --broker URL --topology DIR")
        }
        if (offline || broker != nil) && topology == nil {
            throw ValidationError("\(offline ? "--offline" : "--broker") needs --topology DIR")
        }
        if let gainError, !offline || !(gainError >= 0 && gainError <= 20) {
            throw ValidationError("--gain-error needs --offline and a value from 0 to 20 dB")
        }
        if let presence, !offline || PresenceSimulation.Clients(rawValue: presence) == nil || gainError != nil {
            throw ValidationError("--presence needs --offline (without --gain-error) and 'tags' or 'phones', got '\(presence)'")
        }
        if trace != nil, presence == nil { throw ValidationError("--trace needs --presence") }
        if misses != nil, !offline || presence != nil || gainError != nil {
            throw ValidationError("--misses needs --offline phones (not --presence or --gain-error)")
        }
        if areas != nil, presence == nil { throw ValidationError("--areas needs --presence") }
        if let pause {
            guard presence != nil, flatWalk == nil else { throw ValidationError("--pause needs --presence (not --flat-walk)") }
            guard Self.pauses(pause) != nil else {
                throw ValidationError("--pause must be SECONDS or MIN-MAX, from 0 to 3600 s with MIN ≤ MAX, got '\(pause)'")
            }
        }
        if flatWalk != nil, presence != "tags" { throw ValidationError("--flat-walk needs --offline --presence tags") }
        if let appRegions, !(0..<20).contains(appRegions) { throw ValidationError("--app-regions must be 0…19, got \(appRegions)") }
        if let wakeSeconds, !(wakeSeconds > 0) { throw ValidationError("--wake-seconds must be positive, got \(wakeSeconds)") }
        if PhoneFamily.named[family] == nil {
            throw ValidationError("--family must be one of \(PhoneFamily.named.keys.sorted().joined(separator: ", ")), got '\(family)'")
        }
        if broker != nil {
            if LiveSimulation.Mode(rawValue: mode) == nil { throw ValidationError("--mode must be phones or tags, got '\(mode)'") }
            if !(speedup > 0) { throw ValidationError("--speedup must be positive, got \(speedup)") }
        }
        if clients < 1 { throw ValidationError("--clients must be at least 1, got \(clients)") }
        if let budget, budget < 1 { throw ValidationError("--budget must be at least 1, got \(budget)") }
        if SimulationDuration.seconds(duration) == nil {
            throw ValidationError("--duration '\(duration)' is not a duration (examples: 900, 15m, 1h, 90s)")
        }
    }

    func run() async throws {
        if let tetam {
            try runTetam(directory: tetam)
        } else if let broker {
            try await runLive(broker: broker)
        } else {
            try await runOffline()
        }
    }

    private func runTetam(directory: String) throws {
        let dataset = try TetamDataset.load(directory: URL(fileURLWithPath: directory, isDirectory: true))
        var replay = TetamReplay(dataset: dataset)
        if let train {
            replay.trainingTracks = train.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        let venue = try topology.map { try Topology.load(directory: URL(fileURLWithPath: $0, isDirectory: true)) }
        if let venue { replay.configuration = TetamReplay.configuration(topology: venue) }
        var report = try replay.run(coordinator: venue)
        if let venue {
            var planner = plannerConfiguration()
            if let budget { planner.budget = budget }
            report.coverage = try replay.coverage(topology: venue, planner: planner)
        }
        try emit(report, text: report.text)
    }

    private func runOffline() async throws {
        if let gainError { return try runGainError(gainError) }
        if let presence { return try await runPresence(PresenceSimulation.Clients(rawValue: presence)!) }
        let venue = try Topology.load(directory: URL(fileURLWithPath: topology!, isDirectory: true))
        let phones = try phoneFamily()
        let configuration = PhoneSimulation.Configuration(
            clients: clients, duration: SimulationDuration.seconds(duration)!, seed: seed, mode: foreground ? .foreground : .suspended,
            family: phones, latency: roundTrip, connect: connect)
        var lines = ["strategy,phone,time,region,asleepFor,awakeFor,heard,monitored"]
        let record: ((PhoneSimulation.Miss) -> Void)? =
            misses == nil
            ? nil
            : { miss in
                lines.append(
                    [
                        miss.strategy.rawValue, String(miss.client), String(format: "%.2f", miss.time), venue.regions[miss.region].id,
                        String(format: "%.2f", miss.asleepFor), String(format: "%.2f", miss.awakeFor), String(miss.heard),
                        String(miss.monitored),
                    ].joined(separator: ","))
            }
        let report = await (try PhoneSimulation(topology: venue, configuration: configuration)).run(misses: record)
        if let path = misses { try writeCSV(lines, to: path, option: "--misses") }
        try emit(report, text: report.text)
    }

    /// The family phones are drawn from: `--family`, changed by `--phones`, `--app-regions` and
    /// `--wake-seconds`.
    func phoneFamily() throws -> PhoneFamily {
        var phones = PhoneFamily.named[family]!
        for setting in phoneSettings {
            do { try phones.setting(setting) } catch { throw ValidationError(error.description) }
        }
        if let appRegions { phones.budget = (20 - appRegions)...(20 - appRegions) }
        if let wakeSeconds { phones.wakeWindow = wakeSeconds...wakeSeconds }
        return phones
    }

    private func runLive(broker: String) async throws {
        let brokers: [BrokerURL]
        do {
            brokers = try MQTTConfiguration.brokers(parsing: broker)
        } catch {
            throw ValidationError("--broker \(broker): \(error)")
        }
        let url = brokers[0]
        let topics: Topics
        do {
            topics = try Topics(prefix: prefix)
        } catch {
            throw ValidationError("--prefix \(prefix): \(error)")
        }
        let venue = try Topology.load(directory: URL(fileURLWithPath: topology!, isDirectory: true))
        var configuration = LiveSimulation.Configuration(
            broker: url, topology: venue, topics: topics, clients: clients, mode: LiveSimulation.Mode(rawValue: mode)!)
        configuration.broker.tls = MQTTTLSFiles(caFile: caFile, certificateFile: certFile, keyFile: keyFile)
        configuration.broker.failoverURLs = Array(brokers.dropFirst())
        do {
            try configuration.broker.setVersion(commandLine: mqttVersion)
        } catch {
            throw ValidationError("\(error)")
        }
        configuration.duration = SimulationDuration.seconds(duration)!
        configuration.speedup = speedup
        configuration.seed = seed
        configuration.budget = budget
        configuration.family = try phoneFamily()
        configuration.foreground = foreground
        configuration.clientPrefix = clientPrefix
        configuration.connectionPerWake = !sharedConnection
        configuration.reportCopies = reportCopies
        let report = try await LiveSimulation(configuration: configuration).run { report in
            if !json { print(report.summary) }
        }
        if json {
            try emit(report, text: report.summary)
        }
    }

    /// The planner's defaults with the hysteresis options applied.
    private func plannerConfiguration() -> PlannerConfiguration {
        var planner = PlannerConfiguration()
        if let margin { planner.margin = margin }
        if let swapThreshold { planner.swapThreshold = swapThreshold }
        if let guardDistance { planner.guardDistance = guardDistance }
        return planner
    }

    /// Writes `lines` (a header first) as a CSV file for `option` (`--trace`, `--misses`), or fails
    /// naming the option and the path.
    func writeCSV(_ lines: [String], to path: String, option: String) throws {
        do {
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw CommandFailure("\(option) \(path): cannot write: \(error.localizedDescription)")
        }
    }

    func emit<Report: Encodable>(_ report: Report, text: String) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(text)
        }
    }
}

/// Parses `900`, `90s`, `15m`, `1h` into seconds.
enum SimulationDuration {
    static func seconds(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        for (suffix, factor) in units where trimmed.hasSuffix(suffix) {
            guard let value = Double(trimmed.dropLast(suffix.count)), value > 0, value.isFinite else { return nil }
            return value * factor
        }
        guard let value = Double(trimmed), value > 0, value.isFinite else { return nil }
        return value
    }
}
