import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

/// Each subcommand through the built binary: its exit status and what it prints, and the
/// `--help` examples that can run here run as written.
@Suite("beaconfleet through the binary", .requiresBeaconFleetBinary)
struct CommandLineTests {
    /// Every line of `text` as a JSON object.
    static func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test(
        "decode --json prints the shared capture's 11 iBeacon frames as its README counts them; a missing file fails naming it",
        .requiresSharedData)
    func decode() async throws {
        let capture = SharedData.url("captures/horizon74-ibeacon.btsnoop").path
        let (status, output, errors) = try await BeaconFleetCommand.run(["decode", "--json", capture])
        #expect(status == 0, "\(errors)")
        let frames = try Self.objects(output)
        #expect(frames.count == 11)
        #expect(
            frames.allSatisfy { $0["format"] as? String == "ibeacon" && $0["uuid"] as? String == "494E5445-4C4C-495F-524F-434B535F4857" })
        #expect(frames.filter { $0["major"] as? Int == 20594 && $0["minor"] as? Int == 62207 }.count == 10)
        #expect(frames.filter { $0["major"] as? Int == 20597 && $0["minor"] as? Int == 62207 }.count == 1)

        let missing = try await BeaconFleetCommand.run(["decode", "/nonexistent/capture.btsnoop"])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("/nonexistent/capture.btsnoop"), "\(missing.errors)")
    }

    /// The `beaconfleet plan` command lines of `plan --help`'s examples: (arguments, standard input).
    static func planExamples() async throws -> [(arguments: [String], input: String?)] {
        let help = try await BeaconFleetCommand.run(["plan", "--help"])
        #expect(help.status == 0)
        // The examples block: one example per indented line; the help's wrapping continues a long one
        // on an unindented line.
        var lines: [String] = []
        var inExamples = false
        for line in help.output.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "Examples:" {
                inExamples = true
                continue
            }
            guard inExamples else { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty { break }
            let text = line.trimmingCharacters(in: .whitespaces)
            // A shell line continued with a trailing backslash, or wrapped by the help, joins the one before.
            if let last = lines.last, last.hasSuffix("\\") {
                lines[lines.count - 1] = String(last.dropLast()).trimmingCharacters(in: .whitespaces) + " " + text
            } else if line.hasPrefix(" ") || lines.isEmpty {
                lines.append(text)
            } else {
                lines[lines.count - 1] += " " + line
            }
        }
        var examples: [(arguments: [String], input: String?)] = []
        for line in lines {
            guard let command = line.range(of: "beaconfleet plan ") else { continue }
            let arguments = line[command.upperBound...].split(separator: " ").map(String.init)
            var input: String?
            if line.hasPrefix("printf '"), let end = line.dropFirst(8).firstIndex(of: "'") {
                input = line[line.index(line.startIndex, offsetBy: 8)..<end].replacingOccurrences(of: "\\n", with: "\n")
            }
            examples.append((arguments, input))
        }
        return examples
    }

    @Test("plan: every example in plan --help runs as written (the --stdin one included), exit status 0")
    func planHelpExamples() async throws {
        let examples = try await Self.planExamples()
        #expect(examples.count == 3, "the examples: \(examples.map(\.arguments))")
        #expect(examples.contains { $0.input != nil }, "the --stdin example was not found")
        for example in examples {
            let (status, output, errors) = try await BeaconFleetCommand.run(["plan"] + example.arguments, input: example.input)
            #expect(status == 0, "plan \(example.arguments.joined(separator: " ")): \(errors)")
            #expect(errors.isEmpty, "plan \(example.arguments.joined(separator: " ")): \(errors)")
            if example.arguments.contains("--json") {
                let answers = try Self.objects(output)
                #expect(answers.count == (example.input?.split(separator: "\n").count ?? 1))
                for answer in answers {
                    #expect(answer["error"] == nil, "\(answer)")
                    let regions = try #require(answer["regions"] as? [[String: Any]])
                    #expect(regions.count == answer["budget"] as? Int, "a full set for \(answer["query"] ?? "?")")
                }
            } else {
                #expect(output.contains("hall-entrance"), "\(output)")
            }
        }
    }

    @Test("plan --stdin: a line with an unknown level is an error naming the line; the others are answered; exit status 1")
    func planStdinError() async throws {
        let (status, output, errors) = try await BeaconFleetCommand.run(
            ["plan", "--topology", "topology/museum", "--stdin", "--json"], input: "hall-entrance\n12,4,L9\n")
        #expect(status == 1)
        #expect(errors.contains("stdin:2: error: unknown level 'L9'"), "\(errors)")
        let answers = try Self.objects(output)
        #expect(answers.count == 2)
        #expect((answers.first?["regions"] as? [Any])?.isEmpty == false)
        #expect(answers.last?["error"] as? String == "unknown level 'L9'")
    }

    @Test("topology check accepts the museum and refuses a missing directory; export writes the mall as JSON")
    func topology() async throws {
        let check = try await BeaconFleetCommand.run(["topology", "check", "topology/museum"])
        #expect(check.status == 0, "\(check.output)\(check.errors)")
        let missing = try await BeaconFleetCommand.run(["topology", "check", "/nonexistent/venue"])
        #expect(missing.status != 0)
        #expect((missing.output + missing.errors).contains("/nonexistent/venue"))

        let export = try await BeaconFleetCommand.run(["topology", "export", "topology/mall"])
        #expect(export.status == 0, "\(export.errors)")
        let venue = try #require(try JSONSerialization.jsonObject(with: Data(export.output.utf8)) as? [String: Any])
        let regions = try #require(venue["regions"] as? [[String: Any]])
        let rows = try String(contentsOf: SharedData.packageRoot.appendingPathComponent("topology/mall/regions.csv"), encoding: .utf8)
            .split(separator: "\n").filter {
                !$0.hasPrefix("#") && !$0.hasPrefix("id,") && !$0.trimmingCharacters(in: .whitespaces).isEmpty
            }
        #expect(regions.count == rows.count, "one exported region per row of regions.csv")
    }

    @Test(
        "simulate --offline --json: suspended phones under iOS's rules, every strategy counted on the same arrivals; --foreground keeps them awake; bad options exit 64"
    )
    func simulateOffline() async throws {
        let (status, output, errors) = try await BeaconFleetCommand.run(
            [
                "simulate", "--offline", "--topology", "topology/museum", "--clients", "1", "--duration", "90", "--family", "declared",
                "--json",
            ])
        #expect(status == 0, "\(errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(report["mode"] as? String == "suspended")
        let budget = try #require(report["budget"] as? [String: Any])
        #expect(budget["fewest"] as? Int == 18 && budget["most"] as? Int == 18, "\(budget)")
        let strategies = try #require(report["strategies"] as? [[String: Any]])
        #expect(Set(strategies.compactMap { $0["strategy"] as? String }) == ["frontier", "nearest", "first-set", "clairvoyant"])
        let arrivals = Set(strategies.compactMap { ($0["tally"] as? [String: Any])?["entries"] as? Int })
        #expect(arrivals.count == 1 && (arrivals.first ?? 0) > 0, "the same arrivals for every strategy: \(arrivals)")
        let awake = try await BeaconFleetCommand.run(
            ["simulate", "--offline", "--foreground", "--topology", "topology/museum", "--clients", "1", "--duration", "30", "--json"])
        #expect(awake.status == 0, "\(awake.errors)")
        #expect(awake.output.contains("\"foreground\""))
        let bad = try await BeaconFleetCommand.run(["simulate", "--offline", "--topology", "topology/museum", "--app-regions", "25"])
        #expect(bad.status == 64)
        #expect(bad.errors.contains("--app-regions must be 0…19, got 25"), "\(bad.errors)")
        // The default family draws each phone's radio and timings: each phone's condition is in the
        // report. --misses writes each missed arrival, one line each: as many as the strategies missed.
        let misses = FileManager.default.temporaryDirectory.appendingPathComponent("misses-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: misses) }
        let family = try await BeaconFleetCommand.run(
            [
                "simulate", "--offline", "--topology", "topology/museum", "--clients", "2", "--duration", "60", "--json", "--misses",
                misses.path,
            ])
        #expect(family.status == 0, "\(family.errors)")
        let drawn = try #require(try JSONSerialization.jsonObject(with: Data(family.output.utf8)) as? [String: Any])
        let phones = try #require(drawn["phones"] as? [[String: Any]])
        #expect(phones.count == 2 && phones.allSatisfy { $0["condition"] is [String: Any] }, "\(phones)")
        let missed = try #require(drawn["strategies"] as? [[String: Any]]).map { strategy -> Int in
            let tally = strategy["tally"] as? [String: Any]
            return (tally?["entries"] as? Int ?? 0) - (tally?["covered"] as? Int ?? 0)
        }
        let lines = try String(contentsOf: misses, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "strategy,phone,time,region,asleepFor,awakeFor,heard,monitored")
        #expect(lines.count - 1 == missed.reduce(0, +) && lines.count > 1, "\(lines.count - 1) lines for \(missed)")
        let unwritable = try await BeaconFleetCommand.run(
            [
                "simulate", "--offline", "--topology", "topology/museum", "--clients", "1", "--duration", "10", "--misses",
                "/nonexistent/m.csv",
            ])
        #expect(unwritable.status == 1 && unwritable.errors.contains("--misses /nonexistent/m.csv: cannot write"), "\(unwritable.errors)")
        let badSetting = try await BeaconFleetCommand.run(
            ["simulate", "--offline", "--topology", "topology/museum", "--phones", "scan=fast"])
        #expect(badSetting.status == 64)
        #expect(badSetting.errors.contains("scan: 'fast' is not a number or LOW...HIGH"), "\(badSetting.errors)")
        let wake = try await BeaconFleetCommand.run(["simulate", "--offline", "--topology", "topology/museum", "--wake-seconds", "0"])
        #expect(wake.status == 64)
        #expect(wake.errors.contains("--wake-seconds must be positive"), "\(wake.errors)")
    }

    @Test("watch prints the retained regions of a client and a gateway's live status; a bad --client exits 64")
    func watch() async throws {
        let bad = try await BeaconFleetCommand.run(["watch", "--broker", "mqtt://127.0.0.1:1", "--client", "not valid!"])
        #expect(bad.status == 64, "\(bad.errors)")
        #expect(bad.errors.contains("--client"))

        try await withMosquittoBroker { broker in
            let topics = try Topics()
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { publisher in
                let regions = RegionsMessage(
                    version: 3, budget: 20,
                    regions: [RegionRef(id: "hall", uuid: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E", major: 1, minor: 0)],
                    add: [RegionRef(id: "hall", uuid: "F7826DA6-4FA2-4E98-8024-BC5B71E0893E", major: 1, minor: 0)], remove: ["cafe"],
                    position: nil, reason: "moved")
                try await publisher.publish(
                    topic: topics.clientRegions(try Identifier("phone-7")), payload: try WireCoding.encode(regions), qos: .atLeastOnce,
                    retain: true)

                let watch = try BeaconFleetCommand(["watch", "--broker", broker.url.description])
                try await watch.waitForOutput(containing: "phone-7")
                #expect(watch.output.contains("regions v3"), "\(watch.output)")
                #expect(watch.output.contains("-cafe +hall"), "\(watch.output)")

                // Live traffic, once watch is subscribed (it printed the retained message after subscribing).
                let status = GatewayStatus(state: .online, version: "test", adapter: "hci0")
                try await publisher.publish(
                    topic: topics.gatewayStatus(try Identifier("gw-test")), payload: try WireCoding.encode(status), qos: .atLeastOnce)
                try await watch.waitForOutput(containing: "gw-test")
                #expect(watch.process.isRunning, "watch runs until it is interrupted")
                kill(watch.process.processIdentifier, SIGINT)
                let exit = try await watch.waitForExit(within: .seconds(30))
                // Ctrl-C ends it as it ends any command line tool (the shell's status 130), not with an error status.
                #expect(watch.process.terminationReason == .uncaughtSignal && exit == SIGINT, "status \(exit): \(watch.errors)")
            }
        }
    }

    @Test(
        "demo --duration 5 runs a private broker, the coordinator and walking phones and tags, prints their final summary (tags: the room shown) and exits 0"
    )
    func demo() async throws {
        let (status, output, errors) = try await BeaconFleetCommand.run(
            ["demo", "--duration", "5", "--replay", "none", "--phones", "2", "--tags", "1", "--quiet"], within: .seconds(180))
        #expect(status == 0, "\(output)\n\(errors)")
        let lines = output.split(separator: "\n")
        let phones = try #require(lines.first { $0.hasPrefix("final") && $0.contains("phones:") }, "\(output)")
        #expect(phones.contains("clients=2"))
        // Both phones were given a set: one `regions` message each at least (the frontier planner,
        // the coordinator's default, rotates a walking phone's set more often than nearest-N did).
        let received = phones.split(separator: " ").first { $0.hasPrefix("regions=") }.flatMap { Int($0.dropFirst("regions=".count)) }
        #expect((received ?? 0) >= 2, "both phones were given a set of regions: \(phones)")
        #expect(phones.contains("versions: 0 repeated, 0 skipped"), "\(phones)")
        // The tag is located, not planned: its figures are the room shown (the museum's rooms, kept beside it).
        let tags = try #require(lines.first { $0.hasPrefix("final") && $0.contains("tags:") }, "\(output)")
        #expect(tags.contains("clients=1") && tags.contains("room correct") && !tags.contains("coverage"), "\(tags)")
        #expect(lines.contains { $0.hasPrefix("venue") && $0.contains("rooms from") }, "\(output)")
        #expect(lines.last?.hasPrefix("stopped") == true, "\(output)")
    }
}
