import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

/// The field fault of a gateway whose spool was wiped (a re-imaged Pi, a replacement with the same
/// id): the real `beaconfleet agent` replaying a real capture through a real mosquitto into a coordinator.
@Suite("Gateway epochs through a real broker", .serialized, .requiresBeaconFleetBinary, .requiresSharedData)
struct GatewayEpochBrokerTests {
    let topics = try! Topics()
    /// The capture's main iBeacon (docs: ../shared/data/README.md), a tag to the corridor venue.
    let tag = "494E5445-4C4C-495F-524F-434B535F4857.20594.62207"

    /// Runs `beaconfleet agent` as gateway `g0` replaying the horizon74 capture to its end with
    /// `spool`, and answers the `seq` of its last batch, from its retained final status.
    func replay(broker: MosquittoBroker, spool: String) async throws -> UInt64 {
        guard let binary = BuiltProduct.beaconfleet else { throw CoordinatorError(BuiltProduct.missingMessage("beaconfleet")) }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("agent-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "agent", "--broker", broker.url.description, "--gateway", "g0", "--replay",
            SharedData.url("captures/horizon74-ibeacon.btsnoop").path, "--speed", "max", "--spool", spool, "--spool-fsync", "false",
            "--log-level", "info",
        ]
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = process.standardOutput
        try process.run()
        try await withTimeout(.seconds(60), "the agent's replay") {
            while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "agent log:\n\(text)")
        let statusTopic = topics.gatewayStatus(try Identifier("g0"))
        return try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: statusTopic) { probe, messages in
            return try await withTimeout(.seconds(10), "the agent's retained offline status") {
                for await message in messages {
                    if let status = try? WireCoding.decode(GatewayStatus.self, from: message.payload, topic: message.topic),
                        status.state == .offline, let last = status.counters?.lastSeq
                    {
                        return last
                    }
                }
                throw CoordinatorError("no offline status")
            }
        }
    }

    /// Waits until the coordinator has received `batches` sightings batches in all.
    func waitForBatches(_ coordinator: CoordinatorHarness.InProcess, _ batches: UInt64) async throws -> IngestCounters {
        try await withTimeout(.seconds(60), "\(batches) batches at the coordinator") {
            while true {
                let counters = await coordinator.service.core.counters
                if counters.sightingsBatches >= batches { return counters }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    @Test("an agent whose spool was wiped restarts its seq at 1 with a new epoch, and the coordinator uses its batches again")
    func wipedSpoolIsHeardAgain() async throws {
        let venue = try TestVenue.write(TestVenue.files())
        let spool = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
        defer {
            try? FileManager.default.removeItem(at: venue)
            try? FileManager.default.removeItem(atPath: spool)
        }
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker, topology: venue)
            let first = try await replay(broker: broker, spool: spool)
            #expect(first >= 1)
            let before = try await waitForBatches(coordinator, first)
            #expect(before.duplicateBatches == 0 && before.sequenceResets == 0)
            let seen = try #require(await coordinator.service.core.client(tag)?.lastSeen, "the capture's beacon is a tag")

            // The gateway is re-imaged: its spool is gone, its seq starts over at 1.
            try FileManager.default.removeItem(atPath: spool)
            let second = try await replay(broker: broker, spool: spool)
            #expect(second == first, "the same capture, again from seq 1")
            let after = try await waitForBatches(coordinator, first + second)
            await coordinator.stop()
            #expect(after.duplicateBatches == 0, "no batch of the new spool was taken for a duplicate")
            #expect(after.sequenceResets == 1, "one new epoch")
            #expect(after.sightings > before.sightings)
            let seenAgain = try #require(await coordinator.service.core.client(tag)?.lastSeen)
            #expect(seenAgain > seen, "the new spool's sightings reached the tag")
        }
    }
}
