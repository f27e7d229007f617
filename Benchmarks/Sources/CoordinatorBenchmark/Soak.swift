import BenchmarkSupport
import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import Topology
import WireProtocol

/// The soak (`CoordinatorBenchmark soak`, run by `scripts/soak`): the release coordinator binary in a
/// process of its own on one mosquitto, with a generated venue of at least 200 gateways hearing
/// 9,000 tags at 1 Hz and 1,000 phones each reporting every 10 s a move that changes its set (so
/// every report must be answered), for `SOAK_MINUTES` (10). Every 10 s: the coordinator's resident
/// set; each minute: RSS, report → regions p50/p99 of the phones' answers, shed sightings batches,
/// lost reports (no answer within 10 s). Then a verdict on the RSS slope over the last 5 minutes,
/// the lost reports and the run's p99, and the samples as CSV and SVG (`SOAK_CSV`, `SOAK_SVG`).
struct Soak {
    var minutes = environmentInteger("SOAK_MINUTES") ?? 10
    var tags = environmentInteger("SOAK_TAGS") ?? 9_000
    var phones = environmentInteger("SOAK_PHONES") ?? 1_000
    /// A phone's report period, seconds.
    var reportPeriod = 10.0
    /// A report unanswered this long (seconds) is lost.
    var answerWindow = 10.0
    var queueLimit = 10_000
    /// The generated venue: one level of 3,000 regions has 208 gateways along its corridors.
    var venue = VenueGenerator(regions: 3_000, levels: 1, seed: 16)
    var root: URL

    func run() async throws {
        let topics = try Topics()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-soak-\(getpid())")
        try venue.write(to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let topology = try Topology.load(directory: directory)
        let gateways = topology.gateways.map(\.id).sorted()
        guard gateways.count >= 200 else { throw CoordinatorError("the generated venue has \(gateways.count) gateways, fewer than 200") }
        // Two groups of regions at the venue's two ends: a phone moving from one to the other
        // always changes its nearest set, so each of its reports brings a `regions` message.
        let placed = topology.regions.filter { $0.id != "venue" }.map(\.id)
        let sides = [Array(placed.prefix(3)), Array(placed.suffix(3))]
        print(
            "soak: \(tags) tags at 1 Hz by \(gateways.count) gateways + \(phones) phones reporting every \(Int(reportPeriod)) s, \(minutes) min, venue \(placed.count) regions, queue limit \(queueLimit), load average \(loadAverage())"
        )

        let broker = try await MosquittoBroker.start()
        let port = try LoopbackPort.hold()
        LoopbackPort.release(port)
        let coordinator = try await CoordinatorProcess(
            binary: CoordinatorProcess.binary(root: root), broker: "mqtt://127.0.0.1:\(broker.port)", topology: directory, httpPort: port,
            queueLimit: queueLimit)
        defer { coordinator.stop() }

        // The phones: one connection, each phone subscribed to its own regions only.
        let phoneClient = try await connectedBulkClient(broker)
        let ledger = SoakLedger(phones: phones)
        let ids = try (0..<phones).map { try Identifier("phone\($0)") }
        let byTopic = Dictionary(uniqueKeysWithValues: ids.enumerated().map { (topics.clientRegions($1), $0) })
        for id in ids { _ = try await phoneClient.subscribe(topics.clientRegions(id)) }
        let registration = phoneClient.handleMessages { message in
            if let phone = byTopic[message.topic] { ledger.answered(phone, at: monotonicSeconds()) }
        }
        defer { registration.cancel() }

        // The tags walk at 1 Hz from now on: tag t by gateway t mod G, its RSSI swinging by 16 dB
        // over about 9 s, each window stamped with its real time and encoded as it goes out.
        let gatewayClient = try await connectedBulkClient(broker)
        let tagCount = tags
        let walking = Task.detached {
            let encoder = WireCoding.makeEncoder()
            let clock0 = Date().timeIntervalSince1970.rounded(.up)
            var seq = [UInt64](repeating: 0, count: gateways.count)
            let topicsByGateway = try gateways.map { topics.sightings(try Identifier($0)) }
            for window in 0... {
                let due = clock0 + Double(window) + 1
                let wait = due - Date().timeIntervalSince1970
                if wait > 0 { try await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
                let start = Date(timeIntervalSince1970: clock0 + Double(window))
                for (g, gateway) in gateways.enumerated() {
                    let sightings = stride(from: g, to: tagCount, by: gateways.count).map {
                        walkingTagSighting($0, window: window, crowd: 0x16)
                    }
                    seq[g] += 1
                    let batch = SightingsBatch(
                        gateway: gateway, seq: seq[g], start: start, end: start.addingTimeInterval(1), sightings: sightings)
                    try gatewayClient.enqueue(topic: topicsByGateway[g], payload: Array(try encoder.encode(batch)), qos: .atLeastOnce)
                }
            }
        }
        defer { walking.cancel() }

        // Warm-up, not counted: every phone's first report answered and every tag in.
        let started = monotonicSeconds()
        for (i, id) in ids.enumerated() {
            ledger.sent(i, at: monotonicSeconds())
            try phoneClient.enqueue(
                topic: topics.clientReport(id), payload: report(sides[0][i % sides[0].count], exit: nil), qos: .atLeastOnce)
        }
        while ledger.waiting > 0 || (coordinator.metric("beaconfleet_coordinator_clients") ?? 0) < Double(tags + phones) {
            try await Task.sleep(for: .milliseconds(500))
            guard monotonicSeconds() - started < 60 else {
                print(
                    "soak: after 60 s of warm-up \(ledger.waiting) phones still wait for their first answer and the coordinator knows \(coordinator.metric("beaconfleet_coordinator_clients") ?? 0) clients"
                )
                exit(1)
            }
        }
        let warm = ledger.take()
        print(
            String(
                format: "soak warm-up: %.1f s until %d clients were in and every phone's first report answered (p99 %.2f ms, %d lost)",
                monotonicSeconds() - started, tags + phones, percentile(warm.latencies, 0.99) * 1000, warm.lost))

        // The measured run: phone i reports at i × period / phones into each period, moving to the other side.
        let t0 = monotonicSeconds()
        let period = reportPeriod
        let phoneCount = phones
        let reporting = Task.detached {
            var side = [Int](repeating: 0, count: phoneCount)
            var place = (0..<phoneCount).map { sides[0][$0 % sides[0].count] }
            for cycle in 0... {
                for i in 0..<phoneCount {
                    let wait = t0 + Double(cycle) * period + Double(i) * period / Double(phoneCount) - monotonicSeconds()
                    if wait > 0 { try await Task.sleep(for: .microseconds(Int(wait * 1e6))) }
                    side[i] = 1 - side[i]
                    let next = sides[side[i]][(cycle + i) % sides[side[i]].count]
                    ledger.sent(i, at: monotonicSeconds())
                    try phoneClient.enqueue(topic: topics.clientReport(ids[i]), payload: report(next, exit: place[i]), qos: .atLeastOnce)
                    place[i] = next
                }
            }
        }
        var samples: [SoakSample] = []
        var minuteLines: [SoakMinute] = []
        let intervals = minutes * 6
        for interval in 1...intervals {
            let end = t0 + Double(interval) * 10
            while monotonicSeconds() < end {
                try await Task.sleep(for: .milliseconds(min(1000, max(1, Int((end - monotonicSeconds()) * 1000)))))
                ledger.expire(sentBefore: monotonicSeconds() - answerWindow)
            }
            if interval == intervals {
                // The last reports get their 10 s too.
                reporting.cancel()
                try await Task.sleep(for: .seconds(answerWindow + 0.5))
                ledger.expire(sentBefore: monotonicSeconds() - answerWindow)
            }
            guard let rss = coordinator.residentBytes else {
                print("soak: the coordinator (pid \(coordinator.pid)) is gone after \(interval * 10) s")
                exit(1)
            }
            let taken = ledger.take()
            samples.append(
                SoakSample(
                    seconds: Double(interval) * 10, residentBytes: rss, latencies: taken.latencies, lost: taken.lost,
                    shedTotal: coordinator.metric("beaconfleet_coordinator_shed_sightings_batches_total") ?? .nan,
                    clients: coordinator.metric("beaconfleet_coordinator_clients") ?? .nan))
            if interval % 6 == 0 {
                let minute = SoakMinute(
                    index: interval / 6 - 1, samples: samples[(interval - 6)...], shedBefore: minuteLines.last?.shedTotal ?? 0)
                minuteLines.append(minute)
                print(minute.line)
                fflush(nil)  // a line per minute is for watching: out at once, into a pipe or a file too
            }
        }
        let totals = ledger.take()
        walking.cancel()
        await phoneClient.disconnect()
        await gatewayClient.disconnect()
        coordinator.stop()
        await broker.stop()

        // The verdict.
        let last = samples.filter { $0.seconds > samples.last!.seconds - 300 - 1 }
        let slope = leastSquaresSlope(last.map { ($0.seconds / 60, $0.residentMiB) })
        let meanMiB = last.reduce(0) { $0 + $1.residentMiB } / Double(max(last.count, 1))
        let slopePercent = slope / meanMiB * 100
        let all = samples.flatMap(\.latencies)
        let lost = samples.reduce(0) { $0 + $1.lost }
        let p99 = percentile(all, 0.99) * 1000
        let shed = samples.last?.shedTotal ?? .nan
        let span = (last.last!.seconds - last.first!.seconds) / 60
        print("soak verdict (\(minutes) min, load average \(loadAverage())):")
        print(
            String(
                format:
                    "  RSS slope over the last %.1f min: %+.3f %%/min (%+.2f MiB/min, mean %.1f MiB, %d samples) | target < 1 %%/min: %@",
                span, slopePercent, slope, meanMiB, last.count, verdict(slopePercent, measured: last.count >= 10, signed: true) { $0 < 1 }))
        print(
            String(
                format: "  lost reports: %d of %d sent (%d regions messages answered nothing) | target 0: %@", lost, totals.sent - phones,
                totals.unsolicited, verdict(Double(lost), measured: totals.sent > phones, signed: true) { $0 == 0 }))
        print(
            String(
                format: "  report -> regions over the run: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d answers) | target p99 <= 10 ms: %@",
                percentile(all, 0.5) * 1000, p99, (all.max() ?? .nan) * 1000, all.count, verdict(p99, measured: !all.isEmpty) { $0 <= 10 }))
        print(String(format: "  shed sightings batches: %.0f (queue limit %d)", shed, queueLimit))
        let verdicts = [
            verdict(slopePercent, measured: last.count >= 10, signed: true) { $0 < 1 },
            verdict(Double(lost), measured: totals.sent > phones, signed: true) { $0 == 0 },
            verdict(p99, measured: !all.isEmpty) { $0 <= 10 },
        ]
        BenchmarkResult.record(
            id: "soak",
            target: "the soak, \(minutes) minutes: RSS slope < 1 %/min, no lost report, report → `regions` p99 ≤ 10 ms",
            figure: String(
                format: "%@: RSS %.1f MiB (slope %+.3f %%/min), %d lost of %d reports, %.0f shed batches, p99 %.2f ms.",
                verdicts.allSatisfy { $0 == "met" } ? "Met" : verdicts.contains("NOT met") ? "Not met" : "Not measured", meanMiB,
                slopePercent,
                lost, totals.sent - phones, shed, p99),
            baseline: "none: each verdict is against its target", command: "scripts/soak")

        let environment = ProcessInfo.processInfo.environment
        let artifacts = root.appendingPathComponent(".build/artifacts")
        let csvURL = environment["SOAK_CSV"].map { URL(fileURLWithPath: $0) } ?? artifacts.appendingPathComponent("soak.csv")
        let svgURL = environment["SOAK_SVG"].map { URL(fileURLWithPath: $0) } ?? artifacts.appendingPathComponent("soak.svg")
        for url in [csvURL, svgURL] {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        try Data(SoakPlot.csv(samples).utf8).write(to: csvURL)
        let title = String(
            format: "Soak: %d tags + %d phones, %d gateways, %d min; RSS slope %+.2f %%/min, %d lost, p99 %.2f ms", tags, phones,
            gateways.count, minutes, slopePercent, lost, p99)
        try Data(SoakPlot.svg(samples, minutes: minuteLines, title: title).utf8).write(to: svgURL)
        print("  samples: \(csvURL.path) | plot: \(svgURL.path)")
    }
}

/// The 1, 5 and 15 minute load averages, as /proc/loadavg says them (the machine is shared).
func loadAverage() -> String {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}
