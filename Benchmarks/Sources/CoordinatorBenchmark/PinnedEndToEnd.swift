import BenchmarkSupport
import Foundation
import MosquittoTesting

/// End to end with a core of its own (`CoordinatorBenchmark e2e-pinned`): the publisher (this
/// process) and the broker on CPU 0, the consumer on CPU 1 — the release coordinator binary for the
/// measured run, `mosquitto_sub` for the baseline — so the ratio says whether the coordinator keeps
/// up with what the broker delivers, not how it shares a core with them. The stream is the e2e
/// section's (QoS 1, batches of 1,000 sightings); the coordinator's progress is its `/metrics`
/// counter of sightings applied, polled every 50 ms.
///
/// The two consumers take turns, `rounds` times, on the same slice of batches (the baseline's on a
/// topic of its own, so the idle coordinator does not receive them): a machine whose load drifts
/// moves both sides of a round alike, and the verdict is on the median round's ratio. A slice
/// that lasts a second or more keeps the 50 ms polling and the start-up out of the figure.
struct PinnedEndToEnd {
    var root: URL
    var topologyDirectory: URL
    /// `warm` batches, then `rounds` slices of `perRound` batches each, every one new to the
    /// coordinator (its duplicate check drops a batch seen before).
    var batches: [(String, [UInt8])]
    var perBatch: Int
    /// Batches that bring every tag in and plan it before the first timed round.
    var warm: Int
    var rounds: Int
    var perRound: Int

    func run() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        guard cores >= 2, FileManager.default.isExecutableFile(atPath: taskset.path) else {
            print(
                "end to end pinned: \(cores) core(s)\(cores >= 2 ? ", no taskset" : "") here; it needs 2 cores and taskset | target >= 0.9: not measured"
            )
            return
        }
        precondition(batches.count >= warm + rounds * perRound, "e2e-pinned needs warm + rounds × perRound batches")
        // This process (every thread: `-a`) to CPU 0 before the broker starts, which inherits it;
        // put back afterwards so that the sections after this one run as before.
        let original = CoordinatorProcess.affinity(of: getpid())
        _ = try CoordinatorProcess.taskset(["-a", "-cp", "0", "\(getpid())"])
        defer { _ = try? CoordinatorProcess.taskset(["-a", "-cp", original, "\(getpid())"]) }
        let broker = try await MosquittoBroker.start()
        let brokerCPUs = broker.processIdentifier.map { CoordinatorProcess.affinity(of: $0) } ?? "?"
        let publisher = try await connectedBulkClient(broker)
        func publishAll(_ list: ArraySlice<(String, [UInt8])>) throws {
            for (topic, payload) in list { try publisher.enqueue(topic: topic, payload: payload, qos: .atLeastOnce) }
        }
        let clock = ContinuousClock()

        // The coordinator binary on CPU 1, warmed up: every tag in and planned once.
        let port = try LoopbackPort.hold()
        LoopbackPort.release(port)
        let coordinator = try await CoordinatorProcess(
            binary: CoordinatorProcess.binary(root: root), broker: "mqtt://127.0.0.1:\(broker.port)", topology: topologyDirectory,
            httpPort: port, queueLimit: 1_000_000, cpus: "1")
        defer { coordinator.stop() }
        let coordinatorCPUs = coordinator.affinity
        func applied() -> Double { coordinator.metric("beaconfleet_coordinator_messages_in_total", labels: "kind=\"sighting\"") ?? 0 }
        /// Polls until `target` sightings are applied; answers when that happened, interpolated
        /// between the last two polls (the rate between them taken as steady).
        func waitForSightings(_ target: Double, stage: String) async throws -> ContinuousClock.Instant {
            var last = (count: applied(), time: clock.now)
            var lastChange = clock.now
            while last.count < target {
                try await Task.sleep(for: .milliseconds(50))
                let now = (count: applied(), time: clock.now)
                if now.count >= target {
                    let fraction = (target - last.count) / max(now.count - last.count, 1)
                    return last.time + (now.time - last.time) * fraction
                }
                if now.count != last.count { lastChange = now.time }
                guard now.time - lastChange < .seconds(30) else {
                    print("end to end pinned stalled in \(stage): \(now.count) of \(target) sightings")
                    exit(1)
                }
                last = now
            }
            return last.time
        }
        let beforeWarm = applied()
        try publishAll(batches[..<warm])
        _ = try await waitForSightings(beforeWarm + Double(warm * perBatch), stage: "warm-up")
        try await Task.sleep(for: .seconds(2))

        var ratios: [Double] = []
        var rates: [(coordinator: Double, baseline: Double)] = []
        var budgets: [PinnedCPUBudget] = []
        for round in 0..<rounds {
            let slice = batches[(warm + round * perRound)..<(warm + (round + 1) * perRound)]
            // Baseline: mosquitto_sub on CPU 1 receiving the slice (QoS 1) on its own topics.
            let retargeted = slice.map { ($0.0.replacingOccurrences(of: "beaconfleet/v1", with: "bench/v1"), $0.1) }
            let sub = Process()
            sub.executableURL = taskset
            sub.arguments = [
                "-c", "1", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t",
                "bench/v1/gateways/+/sightings", "-C", "\(perRound)",
            ]
            sub.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            // mosquitto_sub's CPU time reaches RUSAGE_CHILDREN once it has exited and been reaped
            // (taskset execs it, so the child is mosquitto_sub itself).
            let subCPUBefore = childrenCPUSeconds()
            try sub.run()
            try await Task.sleep(for: .milliseconds(500))
            let subStart = clock.now
            try publishAll(retargeted[...])
            while sub.isRunning { try await Task.sleep(for: .milliseconds(5)) }
            let subElapsed = clock.now - subStart
            sub.waitUntilExit()
            guard sub.terminationStatus == 0 else {
                // A baseline that failed read nothing: no ratio from it.
                print("end to end pinned: mosquitto_sub exited with status \(sub.terminationStatus) in round \(round + 1) | target >= 0.9: not measured")
                exit(1)
            }
            let subCPU = childrenCPUSeconds() - subCPUBefore
            await publisher.drain()
            try await Task.sleep(for: .milliseconds(500))
            // The coordinator on the same slice.
            let before = applied()
            let coordinatorCPUBefore = cpuSeconds(of: coordinator.pid)
            let start = clock.now
            try publishAll(slice)
            let end = try await waitForSightings(before + Double(perRound * perBatch), stage: "round \(round + 1)")
            let coordinatorCPU = cpuSeconds(of: coordinator.pid) - coordinatorCPUBefore
            await publisher.drain()
            let rate = Double(perRound * perBatch) / seconds(end - start)
            let subRate = Double(perRound * perBatch) / seconds(subElapsed)
            rates.append((rate, subRate))
            ratios.append(rate / subRate)
            budgets.append(
                PinnedCPUBudget(
                    sightings: Double(perRound * perBatch), baselineCPU: subCPU, baselineSeconds: seconds(subElapsed),
                    coordinatorCPU: coordinatorCPU, coordinatorSeconds: seconds(end - start)))
            print(
                String(
                    format: "  round %d: coordinator binary %.0f sightings/s (%.2f s), mosquitto_sub %.0f sightings/s (%.2f s) | ratio %.2f",
                    round + 1, rate, seconds(end - start), subRate, seconds(subElapsed), rate / subRate))
            try await Task.sleep(for: .milliseconds(500))
        }
        let shed = coordinator.metric("beaconfleet_coordinator_shed_sightings_batches_total") ?? .nan
        let median = percentile(ratios, 0.5)
        print(
            String(
                format:
                    "end to end pinned (publisher + broker on CPU %@, consumer on CPU %@; QoS 1, %d rounds of %d batches of %d, taking turns): coordinator binary %.0f sightings/s, mosquitto_sub %.0f sightings/s (baseline) (medians) | ratio %.2f (median; rounds %@) | target >= 0.9: %@ | shed %.0f",
                brokerCPUs, coordinatorCPUs, rounds, perRound, perBatch, percentile(rates.map(\.coordinator), 0.5),
                percentile(rates.map(\.baseline), 0.5), median, ratios.map { String(format: "%.2f", $0) }.joined(separator: ", "),
                verdict(median, measured: !ratios.isEmpty && median > 0) { $0 >= 0.9 }, shed))
        if let budget = PinnedCPUBudget.median(budgets) { print(budget.line) }
        await publisher.disconnect()
        coordinator.stop()
        await broker.stop()
    }
}
