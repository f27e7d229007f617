import BenchmarkSupport
import Foundation
import MosquittoTesting
import Synchronization

/// End to end with a core of its own (`CoordinatorBenchmark e2e-pinned`): the publisher (this
/// process) and the broker on CPU 0, the consumer on CPU 1 — the release coordinator binary for the
/// measured run, `mosquitto_sub` for the baseline — so the ratio says whether the coordinator keeps
/// up with what the broker delivers, not how it shares a core with them. The stream is the e2e
/// section's (QoS 1, batches of 1,000 sightings). Each consumer is timed on the wall clock from the
/// first batch published to the last sighting consumed: `mosquitto_sub`'s exit, and the time the
/// coordinator itself says it applied the last sightings (`/metrics`,
/// `beaconfleet_coordinator_last_sightings_timestamp_seconds`, read once its counter of sightings
/// applied, polled every 200 ms, reaches the slice). The poll is slow because it runs on the
/// measured core: each `/metrics` request is a new HTTP connection, about 0.8 ms of the
/// coordinator's CPU, so polling every 50 ms took about 1.6 % of the core, work no production
/// coordinator does (Prometheus scrapes every 15 s or so). The end time is the coordinator's own,
/// so the interval itself is not in the figure.
///
/// The two consumers take turns, `rounds` times, on the same slice of batches (the baseline's on a
/// topic of its own, so the idle coordinator does not receive them): a machine whose load drifts
/// moves both sides of a round alike, and the verdict is on the median round's ratio. One turn of
/// each before them, printed but not in the verdict, grows both heaps to hold a round in flight.
struct PinnedEndToEnd {
    var root: URL
    var topologyDirectory: URL
    /// `warm` batches, then `rounds` + 1 slices of `perRound` batches each, every one new to the
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
        precondition(batches.count >= warm + (rounds + 1) * perRound, "e2e-pinned needs warm + (rounds + 1) × perRound batches")
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
        /// Polls until `target` sightings are applied; answers when the last of them was, by the
        /// coordinator's own clock (`…_last_sightings_timestamp_seconds`, Unix seconds), so the
        /// polling interval is not in the figure.
        func waitForSightings(_ target: Double, stage: String) async throws -> Double {
            var last = applied()
            var lastChange = clock.now
            while last < target {
                try await Task.sleep(for: .milliseconds(200))
                let now = applied()
                if now != last { lastChange = clock.now }
                guard clock.now - lastChange < .seconds(30) else {
                    print("end to end pinned stalled in \(stage): \(now) of \(target) sightings")
                    exit(1)
                }
                last = now
            }
            guard let end = coordinator.metric("beaconfleet_coordinator_last_sightings_timestamp_seconds") else {
                print("end to end pinned: the coordinator's /metrics has no last_sightings_timestamp_seconds | target >= 0.9: not measured")
                exit(1)
            }
            return end
        }
        let beforeWarm = applied()
        try publishAll(batches[..<warm])
        _ = try await waitForSightings(beforeWarm + Double(warm * perBatch), stage: "warm-up")
        try await Task.sleep(for: .seconds(2))

        /// One turn of each consumer on `slice`: `mosquitto_sub` on CPU 1 first (QoS 1, on topics
        /// of its own), then the coordinator. Both are timed on the wall clock from the first
        /// batch published to the last sighting consumed: `mosquitto_sub`'s exit (its termination
        /// handler's time), the coordinator's own timestamp.
        func turn(_ slice: ArraySlice<(String, [UInt8])>, stage: String) async throws -> PinnedCPUBudget {
            let retargeted = slice.map { ($0.0.replacingOccurrences(of: "beaconfleet/v1", with: "bench/v1"), $0.1) }
            let sub = Process()
            sub.executableURL = taskset
            sub.arguments = [
                "-c", "1", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t",
                "bench/v1/gateways/+/sightings", "-C", "\(slice.count)",
            ]
            sub.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
            let exited = Mutex<Double?>(nil)
            sub.terminationHandler = { _ in exited.withLock { $0 = Date().timeIntervalSince1970 } }
            // mosquitto_sub's CPU time reaches RUSAGE_CHILDREN once it has exited and been reaped
            // (taskset execs it, so the child is mosquitto_sub itself).
            let subCPUBefore = childrenCPUSeconds()
            try sub.run()
            try await Task.sleep(for: .milliseconds(500))
            let subStart = Date().timeIntervalSince1970
            try publishAll(retargeted[...])
            while exited.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
            sub.waitUntilExit()
            guard sub.terminationStatus == 0, let subEnd = exited.withLock({ $0 }) else {
                // A baseline that failed read nothing: no ratio from it.
                print(
                    "end to end pinned: mosquitto_sub exited with status \(sub.terminationStatus) in \(stage) | target >= 0.9: not measured"
                )
                exit(1)
            }
            let subCPU = childrenCPUSeconds() - subCPUBefore
            await publisher.drain()
            try await Task.sleep(for: .milliseconds(500))
            // The coordinator on the same slice.
            let before = applied()
            let estimatesBefore = coordinator.metric("beaconfleet_coordinator_estimates_total") ?? .nan
            let plansBefore = coordinator.metric("beaconfleet_coordinator_plans_total") ?? .nan
            let coordinatorCPUBefore = cpuSeconds(of: coordinator.pid)
            let faultsBefore = minorFaults(of: coordinator.pid)
            let start = Date().timeIntervalSince1970
            try publishAll(slice)
            let end = try await waitForSightings(before + Double(slice.count * perBatch), stage: stage)
            let coordinatorCPU = cpuSeconds(of: coordinator.pid) - coordinatorCPUBefore
            let estimates = (coordinator.metric("beaconfleet_coordinator_estimates_total") ?? .nan) - estimatesBefore
            let faults = minorFaults(of: coordinator.pid) - faultsBefore
            let plans = (coordinator.metric("beaconfleet_coordinator_plans_total") ?? .nan) - plansBefore
            await publisher.drain()
            let round = PinnedCPUBudget(
                sightings: Double(slice.count * perBatch), baselineCPU: subCPU, baselineSeconds: subEnd - subStart,
                coordinatorCPU: coordinatorCPU, coordinatorSeconds: end - start)
            print(
                String(
                    format:
                        "  %@: coordinator binary %.0f sightings/s (%.2f s, %.0f position estimates, %.0f plans, %.0f page faults), mosquitto_sub %.0f sightings/s (%.2f s) | ratio %.2f",
                    stage, round.coordinatorRate, round.coordinatorSeconds, estimates, plans, faults, round.baselineRate,
                    round.baselineSeconds, round.ratio))
            try await Task.sleep(for: .milliseconds(500))
            return round
        }

        // A first turn of each that is not in the verdict: in it the coordinator's and the
        // broker's heaps grow to hold a round in flight (fresh pages faulted in, measured below),
        // which later rounds reuse, as a coordinator that has been running does.
        /// Both processes' resident sets in MiB.
        func residentMiB() -> (coordinator: Double, broker: Double) {
            let broker = broker.processIdentifier.flatMap(CoordinatorProcess.residentBytes) ?? 0
            return (Double(coordinator.residentBytes ?? 0) / 1_048_576, Double(broker) / 1_048_576)
        }
        let beforeWarmUp = residentMiB()
        _ = try await turn(batches[warm..<(warm + perRound)], stage: "warm-up round, not in the verdict")
        let afterWarmUp = residentMiB()
        print(
            String(
                format: "    in it the coordinator's resident set grew %.0f → %.0f MiB, the broker's %.0f → %.0f MiB",
                beforeWarmUp.coordinator, afterWarmUp.coordinator, beforeWarmUp.broker, afterWarmUp.broker))
        var budgets: [PinnedCPUBudget] = []
        for round in 0..<rounds {
            let first = warm + (round + 1) * perRound
            budgets.append(try await turn(batches[first..<(first + perRound)], stage: "round \(round + 1)"))
        }
        let ratios = budgets.map(\.ratio)
        let shed = coordinator.metric("beaconfleet_coordinator_shed_sightings_batches_total") ?? .nan
        let median = percentile(ratios, 0.5)
        print(
            String(
                format:
                    "end to end pinned (publisher + broker on CPU %@, consumer on CPU %@; QoS 1, %d rounds of %d batches of %d, taking turns): coordinator binary %.0f sightings/s, mosquitto_sub %.0f sightings/s (baseline) (medians) | ratio %.2f (median; rounds %@) | target >= 0.9: %@ | shed %.0f",
                brokerCPUs, coordinatorCPUs, rounds, perRound, perBatch, percentile(budgets.map(\.coordinatorRate), 0.5),
                percentile(budgets.map(\.baselineRate), 0.5), median, ratios.map { String(format: "%.2f", $0) }.joined(separator: ", "),
                verdict(median, measured: !ratios.isEmpty && median > 0) { $0 >= 0.9 }, shed))
        if let budget = PinnedCPUBudget.median(budgets) { print(budget.line) }
        BenchmarkResult.record(
            id: "e2e-pinned", target: "end to end with a core of its own: the coordinator binary on one core ≥ 0.9 × `mosquitto_sub` on it",
            figure: String(
                format: "%@: median ratio %.2f over %d rounds (%@).",
                verdict(median, measured: !ratios.isEmpty && median > 0) { $0 >= 0.9 }.capitalizedFirst,
                median, rounds, ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")),
            baseline: "`mosquitto_sub` alone on the same core, taking turns with the coordinator on the same batches",
            command: "`scripts/bench coordinator` (section `e2e-pinned`)")
        await publisher.disconnect()
        coordinator.stop()
        await broker.stop()
    }
}
