import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import WireProtocol

/// `SIGTERM` as systemd sends it (`systemctl stop`): the built coordinator drains, persists, says
/// `offline` and exits 0; a restart resumes its clients.
@Suite("Coordinator shutdown on SIGTERM", .serialized, .requiresBeaconFleetBinary)
struct CoordinatorShutdownTests {
    let topics = try! Topics()

    @Test(
        "SIGTERM: exit 0, every client's state in the file, the retained status a clean offline; a restart continues each client's versions"
    )
    func sigtermDrainsAndPersists() async throws {
        let files = try CoordinatorHarness.ProcessFiles("coordinator-term")
        defer { files.release() }
        let phones = ["phone-a", "phone-b"]
        try await withMosquittoBroker { broker in
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { client in
                let seen = MessageLog(client.messages)
                defer { seen.stop() }
                try await client.subscribe(topics.allClientRegions)
                try await client.subscribe(topics.coordinatorStatus)
                var process = try CoordinatorHarness.launch(broker: broker, files: files)
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                try await CoordinatorHarness.waitUntilServing(files, process: process)
                func report(_ phone: String, _ events: [RegionEvent]) async throws {
                    try await client.publish(
                        topic: topics.clientReport(try Identifier(phone)), payload: try WireCoding.encode(ClientReport(events: events)))
                }
                func regions(_ phone: String, after mark: Int) async throws -> RegionsMessage {
                    let topic = topics.clientRegions(try Identifier(phone))
                    let message = try await seen.message(on: topic, "regions for \(phone)", after: mark)
                    return try WireCoding.decode(RegionsMessage.self, from: message.payload, topic: topic)
                }
                var published: [String: UInt64] = [:]
                for phone in phones {
                    try await report(phone, [RegionEvent(type: .enter, region: "hall")])
                    published[phone] = try await regions(phone, after: 0).version
                }
                // A tag heard twice by the hall's gateway: its `lastSeen` is written at the first
                // sighting, and the second only within the next minute, or when the coordinator stops.
                let tag = TestVenue.tagID(1)
                let sightings = topics.sightings(try Identifier("gw-hall"))
                func sighting(_ seq: UInt64) -> [UInt8] {
                    TestVenue.batch(seq: seq, at: Date().timeIntervalSince1970 - 1_795_424_400, tags: [(minor: 1, distance: 2)])
                }
                try await client.publish(topic: sightings, payload: sighting(1))
                _ = try await CoordinatorHarness.get(port: files.port, "/api/clients/\(tag)")  // retried until the tag is known
                try await Task.sleep(for: .seconds(1.5))
                let heardAgain = Date()
                try await client.publish(topic: sightings, payload: sighting(2))
                try await withTimeout(.seconds(20), "the tag's second sighting applied") {
                    while true {
                        let (_, body) = try await CoordinatorHarness.get(port: files.port, "/api/clients/\(tag)")
                        if let snapshot = try? WireCoding.makeDecoder().decode(ClientSnapshot.self, from: body),
                            snapshot.lastSeen >= heardAgain
                        {
                            return
                        }
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }

                let stopping = seen.count
                kill(process.processIdentifier, SIGTERM)
                let status = try await withTimeout(.seconds(30), "the coordinator to exit after SIGTERM") { [process] in
                    while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
                    return process.terminationStatus
                }
                #expect(status == 0, "exit status after SIGTERM")
                #expect(process.terminationReason == .exit, "it exited, not killed by the signal")
                // The goodbye, not the broker's last will (which carries no time): a clean offline.
                let goodbye = try await seen.message(on: topics.coordinatorStatus, "the offline status", after: stopping) { _ in true }
                let offline = try WireCoding.decode(CoordinatorStatus.self, from: goodbye.payload, topic: goodbye.topic)
                #expect(offline.state == .offline && offline.time != nil)
                #expect(
                    try await MessageLog.retained(broker, topics.coordinatorStatus)[topics.coordinatorStatus] == goodbye.payload,
                    "the offline status is retained")

                // The file holds every client at the version it last published.
                let stored = Dictionary(uniqueKeysWithValues: try StateStore(path: files.state).loadClients().map { ($0.id, $0) })
                for phone in phones {
                    #expect(stored[phone]?.version == published[phone], "\(phone) stored at its last version")
                    #expect(stored[phone]?.isPhone == true && stored[phone]?.position != nil)
                }
                let heard = try #require(stored[tag], "the tag is stored")
                #expect(
                    heard.lastSeen >= Int64(heardAgain.timeIntervalSince1970 * 1000), "the tag's last sighting was written on the way out")

                // A restart resumes them: the next plan is the stored version + 1, not a fresh start.
                process = try CoordinatorHarness.launch(broker: broker, files: files)
                try await CoordinatorHarness.waitUntilServing(files, process: process)
                for phone in phones {
                    let (code, body) = try await CoordinatorHarness.get(port: files.port, "/api/clients/\(phone)")
                    #expect(code == 200)
                    #expect(try WireCoding.makeDecoder().decode(ClientSnapshot.self, from: body).version == published[phone])
                    let mark = seen.count
                    try await report(phone, [RegionEvent(type: .exit, region: "hall"), RegionEvent(type: .enter, region: "corridor-2")])
                    let next = try await regions(phone, after: mark)
                    #expect(next.version == (published[phone] ?? 0) + 1, "\(phone)'s versions continue")
                }
                kill(process.processIdentifier, SIGTERM)
                _ = await process.exited()
                #expect(process.terminationStatus == 0)
            }
        }
    }

    @Test("SIGTERM while the broker is unreachable: the coordinator still stops, exit 0")
    func sigtermWithoutBroker() async throws {
        let files = try CoordinatorHarness.ProcessFiles("coordinator-term")
        defer { files.release() }
        // A broker that was there and is gone: its address refuses connections.
        let broker = try await MosquittoBroker.start()
        await broker.stop()
        let process = try CoordinatorHarness.launch(
            broker: broker, files: files,
            extraArguments: ["--home-assistant"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try await CoordinatorHarness.waitUntilServing(files, process: process, subscribed: false)  // /healthz answers 503
        kill(process.processIdentifier, SIGTERM)
        let status = try await withTimeout(.seconds(30), "the coordinator to exit after SIGTERM without a broker") { [process] in
            while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
            return process.terminationStatus
        }
        #expect(status == 0 && process.terminationReason == .exit)
    }
}
