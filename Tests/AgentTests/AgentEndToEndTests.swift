import BeaconKit
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

@testable import Agent

/// The agent as an operator runs it: the `beaconfleet agent` executable, a real mosquitto on a free
/// loopback port, a real subscriber. Nothing is mocked; the broker is stopped and the agent killed for real.
@Suite(.serialized, .requiresBeaconFleetBinary)
struct AgentEndToEndTests {
    let topics = try! Topics()

    private func temporaryDirectory(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    /// What BeaconKit's decoder finds in a capture, per beacon (identity and address): the reference
    /// the published sightings must add up to.
    private func decodedFramesPerBeacon(_ path: String) throws -> [SyntheticCapture.SightedBeacon: Int] {
        let reader = try CaptureReader(path: path)
        var decoder = AdvertisementDecoder()
        var result: [SyntheticCapture.SightedBeacon: Int] = [:]
        while let record = try reader.next() {
            decoder.decode(record) { advertisement in
                guard let beacon = advertisement.beacon else { return }
                let address = advertisement.report.address.description
                switch beacon {
                case .iBeacon(let b):
                    result[.init(uuid: b.uuid.description, major: b.major, minor: b.minor, address: address), default: 0] += 1
                case .altBeacon(let b):
                    result[.init(uuid: b.id1.description, major: b.id2, minor: b.id3, address: address), default: 0] += 1
                case .eddystoneUID(let b):
                    result[.init(uuid: b.namespace.description, major: 0, minor: 0, address: address), default: 0] += 1
                case .eddystoneURL, .eddystoneTLM:
                    result[.init(uuid: "", major: 0, minor: 0, address: address), default: 0] += 1
                case .eddystoneUnknown:
                    break
                }
            }
        }
        return result
    }

    private func decodedStatistics(_ path: String) throws -> DecodeStatistics {
        let reader = try CaptureReader(path: path)
        var decoder = AdvertisementDecoder()
        while let record = try reader.next() { decoder.decode(record) { _ in } }
        return decoder.statistics
    }

    /// Writes `capture`, starts a broker with persistence and a collector for `gateway`, and gives
    /// `body` the arguments of an agent replaying the capture at 4x with a spool of its own, and that spool.
    private func withSpoolingAgent(
        _ capture: SyntheticCapture, gateway id: String,
        _ body: (MosquittoBroker, SightingsCollector, [String], _ spool: String) async throws -> Void
    ) async throws {
        let path = try capture.write()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let gateway = try Identifier(id)
        var configuration = MosquittoBroker.Configuration()
        configuration.persistence = true
        try await withMosquittoBroker(configuration) { broker in
            let collector = try await SightingsCollector(broker: broker.url, topics: topics, gateway: gateway)
            let spool = temporaryDirectory("spool")
            defer { try? FileManager.default.removeItem(atPath: spool) }
            try await body(
                broker, collector, agentArguments(broker: broker.url, gateway: gateway.rawValue, replay: path, speed: "4", spool: spool),
                spool)
        }
    }

    private func agentArguments(broker: BrokerURL, gateway: String, replay: String, speed: String, spool: String) -> [String] {
        [
            "--broker", broker.description, "--gateway", gateway, "--replay", replay, "--speed", speed, "--spool", spool,
            "--spool-fsync", "false", "--status-interval", "1s", "--drain-timeout", "30s", "--log-level", "info",
        ]
    }

    @Test(.requiresSharedData)
    func replayOfARealCaptureAddsUpExactlyToDecode() async throws {
        let capture = SharedData.url("captures/horizon74-ibeacon.btsnoop").path
        let reference = try decodedFramesPerBeacon(capture)
        // The data README, counted by two independent parsers: 11 iBeacon frames, 10 of 20594/62207 and 1 of 20597/62207.
        #expect(reference.values.reduce(0, +) == 11)
        #expect(reference.filter { $0.key.major == 20594 && $0.key.minor == 62207 }.values.reduce(0, +) == 10)

        let gateway = try Identifier("gw-e2e")
        try await withMosquittoBroker { broker in
            let collector = try await SightingsCollector(broker: broker.url, topics: topics, gateway: gateway)
            let spool = temporaryDirectory("spool")
            defer { try? FileManager.default.removeItem(atPath: spool) }
            let agent = try AgentProcess(
                agentArguments(broker: broker.url, gateway: gateway.rawValue, replay: capture, speed: "max", spool: spool))
            let status = try await agent.waitForExit(within: .seconds(60))
            #expect(status == 0, "agent log:\n\(agent.log)")

            let (counters, received) = try await collector.finalDelivery(batchesWithin: .seconds(10), log: agent.log)

            received.expectExactlyOnce(through: counters.lastSeq, frames: reference)
            #expect(received.invalid.isEmpty)
            #expect(counters.reports == UInt64(try decodedStatistics(capture).advertisingReports))
            // Windows are the capture's own: the first batch starts when the capture's first packet was heard.
            let first = try #require(received.batches[1])
            #expect(first.end.timeIntervalSince(first.start) == 1)
            #expect(first.gateway == "gw-e2e")
        }
    }

    @Test func brokerOutageMidReplayLosesAndDuplicatesNothing() async throws {
        let capture = SyntheticCapture(beacons: 20, duration: 32)
        let path = try capture.write()
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try decodedFramesPerBeacon(path) == capture.expected)

        let gateway = try Identifier("gw-outage")
        var configuration = MosquittoBroker.Configuration()
        configuration.persistence = true  // the collector's persistent session survives the restart
        try await withMosquittoBroker(configuration) { broker in
            let collector = try await SightingsCollector(broker: broker.url, topics: topics, gateway: gateway)
            let spool = temporaryDirectory("spool")
            defer { try? FileManager.default.removeItem(atPath: spool) }
            // 32 s of capture at 2× = 16 s; the broker is away for 2.5 s of it. (At 4× a loaded
            // machine once let the replay end before the outage began.)
            // A long drain: the agent's reconnect backoff reaches 8 s while the broker is away, and
            // the replay may end before the next attempt; it must wait for it, not exit with
            // batches spooled (which the next run would send, but this test reads this run).
            let agent = try AgentProcess(
                agentArguments(broker: broker.url, gateway: gateway.rawValue, replay: path, speed: "2", spool: spool)
                    + ["--drain-timeout", "30s"])
            try await waitUntil("two batches before the outage", within: .seconds(20)) { collector.snapshot.batches.count >= 2 }
            await broker.stop()
            try await Task.sleep(for: .milliseconds(2500))
            #expect(agent.isRunning, "the outage must fall mid-replay")
            try await broker.restart()

            let status = try await agent.waitForExit(within: .seconds(60))
            #expect(status == 0, "agent log:\n\(agent.log)")
            let (counters, received) = try await collector.finalDelivery(batchesWithin: .seconds(15), log: agent.log)

            #expect(agent.log.contains("broker unreachable"), "the agent should have seen the outage; log:\n\(agent.log)")
            received.expectExactlyOnce(through: counters.lastSeq, frames: capture.expected)
            #expect(counters.dropped == 0)
            #expect(counters.spooled == 0)
        }
    }

    @Test func agentKilledMidOutageResumesWithoutLossOrDuplication() async throws {
        let capture = SyntheticCapture(beacons: 20, duration: 32, seed: 7)
        try await withSpoolingAgent(capture, gateway: "gw-kill") { broker, collector, arguments, _ in

            let first = try AgentProcess(arguments)
            try await waitUntil("two batches before the outage", within: .seconds(20)) { collector.snapshot.batches.count >= 2 }
            await broker.stop()
            try await Task.sleep(for: .milliseconds(1500))
            #expect(first.isRunning, "the kill must fall mid-replay")
            first.send(SIGKILL)
            let killed = try await first.waitForExit(within: .seconds(10))
            #expect(killed == SIGKILL)

            // Restarted while the broker is still away: it resumes the replay after its last spooled window.
            // A long drain, as in the outage test: the reconnect backoff may outlast the replay.
            let second = try AgentProcess(arguments + ["--drain-timeout", "30s"])
            try await Task.sleep(for: .milliseconds(1500))
            try await broker.restart()

            let status = try await second.waitForExit(within: .seconds(60))
            #expect(status == 0, "agent log:\n\(second.log)")
            #expect(second.log.contains("resuming the replay"), "log:\n\(second.log)")
            let (counters, received) = try await collector.finalDelivery(batchesWithin: .seconds(15), log: second.log)

            received.expectExactlyOnce(through: counters.lastSeq, frames: capture.expected, " across the kill")
        }
    }

    @Test func sigtermKeepsWhatIsUnsentAndTheNextRunDeliversIt() async throws {
        let capture = SyntheticCapture(beacons: 10, duration: 24, seed: 11)
        try await withSpoolingAgent(capture, gateway: "gw-term") { broker, collector, arguments, spool in
            var arguments = arguments
            arguments += ["--drain-timeout", "1s"]

            let first = try AgentProcess(arguments)
            try await waitUntil("two batches", within: .seconds(20)) { collector.snapshot.batches.count >= 2 }
            await broker.stop()
            try await Task.sleep(for: .milliseconds(1000))
            first.send(SIGTERM)
            #expect(try await first.waitForExit(within: .seconds(20)) == 0, "SIGTERM exits 0; log:\n\(first.log)")
            // What the broker never acknowledged is still in the spool, including the flushed window.
            do {
                let left = try BatchSpool(directory: spool, synchronous: false)  // released (unlocked) at the end of this scope
                #expect(left.statistics.batches > 0)
                #expect(left.checkpoint != nil, "an interrupted replay keeps its checkpoint")
            }

            try await broker.restart()
            let second = try AgentProcess(arguments)
            #expect(try await second.waitForExit(within: .seconds(60)) == 0, "log:\n\(second.log)")
            let (counters, received) = try await collector.finalDelivery(batchesWithin: .seconds(15), log: second.log)
            received.expectExactlyOnce(through: counters.lastSeq, frames: capture.expected)
        }
    }

    @Test func adapterWithoutBluetoothFailsWithTheCauseAndTheRemedy() async throws {
        let spool = temporaryDirectory("spool")
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let agent = try AgentProcess(["--adapter", "hci0", "--gateway", "gw1", "--broker", "mqtt://127.0.0.1:1", "--spool", spool])
        let status = try await agent.waitForExit(within: .seconds(20))
        #expect(status != 0)
        let log = agent.log
        #expect(log.contains("hci0"))
        #expect(log.contains("Remedy"), "the message must say what to do; got:\n\(log)")
    }

    @Test func printConfigShowsEachValueAndItsOrigin() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString).conf")
        try "gateway = gw-file\nreplay = x.btsnoop\nwindow = 2s\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let agent = try AgentProcess(
            ["--config", file.path, "--window", "500ms", "--print-config"], environment: ["BEACONFLEET_AGENT_PREFIX": "venue1"])
        #expect(try await agent.waitForExit(within: .seconds(20)) == 0)
        let log = agent.log
        #expect(log.contains("window = 500ms    # flag --window"))
        #expect(log.contains("gateway = gw-file    # \(file.path):1"))
        #expect(log.contains("prefix = venue1    # environment BEACONFLEET_AGENT_PREFIX"))
    }

    private func waitUntil(_ what: String, within limit: Duration, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            if ContinuousClock.now > deadline { throw AgentProcessError(message: "timed out after \(limit) waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
