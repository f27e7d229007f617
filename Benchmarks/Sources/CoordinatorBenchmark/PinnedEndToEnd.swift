import BenchmarkSupport
import Foundation
import MosquittoTesting

/// End to end with a core of its own (`CoordinatorBenchmark e2e-pinned`): the publisher (this
/// process) and the broker on CPU 0, the consumer on CPU 1 — the release coordinator binary for the
/// measured run, `mosquitto_sub` for the baseline — so the ratio says whether the coordinator keeps
/// up with what the broker delivers, not how it shares a core with them. The stream is the e2e
/// section's (QoS 1, batches of 1,000 sightings); the coordinator's progress is its `/metrics`
/// counter of sightings applied, polled every 50 ms.
struct PinnedEndToEnd {
    var root: URL
    var topologyDirectory: URL
    var batches: [(String, [UInt8])]
    var perBatch: Int
    /// Batches that bring every tag in and plan it before the timed window.
    var warm: Int

    func run() async throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let taskset = URL(fileURLWithPath: "/usr/bin/taskset")
        guard cores >= 2, FileManager.default.isExecutableFile(atPath: taskset.path) else {
            print(
                "end to end pinned: \(cores) core(s)\(cores >= 2 ? ", no taskset" : "") here; it needs 2 cores and taskset | target >= 0.9: not measured"
            )
            return
        }
        // This process (every thread: `-a`) to CPU 0 before the broker starts, which inherits it;
        // put back afterwards so that the sections after this one run as before.
        let original = CoordinatorProcess.affinity(of: getpid())
        _ = try CoordinatorProcess.taskset(["-a", "-cp", "0", "\(getpid())"])
        defer { _ = try? CoordinatorProcess.taskset(["-a", "-cp", original, "\(getpid())"]) }
        let broker = try await MosquittoBroker.start()
        let brokerCPUs = broker.processIdentifier.map { CoordinatorProcess.affinity(of: $0) } ?? "?"

        let half = batches.count / 2
        let publisher = try await connectedBulkClient(broker)
        func publishAll(_ list: ArraySlice<(String, [UInt8])>) throws {
            for (topic, payload) in list { try publisher.enqueue(topic: topic, payload: payload, qos: .atLeastOnce) }
        }
        // Baseline: mosquitto_sub on CPU 1 receiving the first half (QoS 1), counted to the end.
        let sub = Process()
        sub.executableURL = taskset
        sub.arguments = [
            "-c", "1", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1", "-t", "beaconfleet/v1/gateways/+/sightings",
            "-C", "\(half)",
        ]
        sub.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try sub.run()
        try await Task.sleep(for: .milliseconds(500))
        let clock = ContinuousClock()
        let subStart = clock.now
        try publishAll(batches[..<half])
        sub.waitUntilExit()
        let subElapsed = clock.now - subStart
        await publisher.drain()

        // The coordinator binary on CPU 1, on the second half, after the warm-up.
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
        try publishAll(batches[half..<(half + warm)])
        _ = try await waitForSightings(beforeWarm + Double(warm * perBatch), stage: "warm-up")
        try await Task.sleep(for: .seconds(2))
        let before = applied()
        let timed = batches.count - half - warm
        let start = clock.now
        try publishAll(batches[(half + warm)...])
        let end = try await waitForSightings(before + Double(timed * perBatch), stage: "the timed window")
        let shed = coordinator.metric("beaconfleet_coordinator_shed_sightings_batches_total") ?? .nan
        let rate = Double(timed * perBatch) / seconds(end - start)
        let subRate = Double(half * perBatch) / seconds(subElapsed)
        print(
            String(
                format:
                    "end to end pinned (publisher + broker on CPU %@, consumer on CPU %@; QoS 1, %d batches of %d): coordinator binary %.0f sightings/s, mosquitto_sub %.0f sightings/s (baseline) | ratio %.2f | target >= 0.9: %@ | shed %.0f",
                brokerCPUs, coordinatorCPUs,
                timed, perBatch, rate, subRate, rate / subRate, verdict(rate / subRate, measured: subRate > 0 && rate > 0) { $0 >= 0.9 }, shed))
        await publisher.disconnect()
        coordinator.stop()
        await broker.stop()
    }}
