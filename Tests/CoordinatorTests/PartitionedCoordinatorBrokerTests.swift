import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import Simulator
import Synchronization
import TestSupport
import Testing
import Topology
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Three `beaconfleet coordinator --partitioned` processes on one mosquitto, phones walking the
/// museum, and `kill -9` of the one that owns it mid-walk (issue 16's CI test).
@Suite("Partitioned coordinators through a real broker", .serialized)
struct PartitionedCoordinatorBrokerTests {
    let topics = try! Topics()

    /// The latest status of each member, by member id.
    static func members(_ entries: [MessageLog.Entry], topics: Topics) -> [String: CoordinatorMemberStatus] {
        var latest: [String: CoordinatorMemberStatus] = [:]
        for entry in entries where topics.coordinatorMember(in: entry.message.topic) != nil && !entry.message.payload.isEmpty {
            if let status = try? WireCoding.decode(CoordinatorMemberStatus.self, from: entry.message.payload, topic: entry.message.topic) {
                latest[status.member] = status
            }
        }
        return latest
    }

    @Test(
        "kill -9 of the coordinator that owns the venue mid-walk: the survivors take over within 10 s, versions only increase, never two publishers for one client in a second",
        .requiresBeaconFleetBinary)
    func killTheOwner() async throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let directory = try makeTemporaryDirectory("partitioned")
        // The members' logs stay when anything fails (a CI failure is diagnosed from them).
        print("partitioned coordinators: members' logs in \(directory.path)")
        var problems: [String] = ["ended early"]
        defer {
            if problems.isEmpty {
                try? FileManager.default.removeItem(at: directory)
            } else {
                print("partitioned coordinators: logs kept in \(directory.path)")
            }
        }
        let topics = self.topics
        try await withMosquittoBroker { broker in
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { observer in
                let recorder = MessageLog(observer.messages)
                defer { recorder.stop() }
                for filter in [topics.allCoordinatorMembers, topics.allClientRegions, topics.allClientEvents, topics.allClientReports] {
                    try await observer.subscribe(filter, qos: .atLeastOnce)
                }
                // Three members, each with its own state file, HTTP port and log.
                var processes: [String: Process] = [:]
                var ports: [Int] = []
                defer {
                    for process in processes.values where process.isRunning { kill(process.processIdentifier, SIGKILL) }
                    for port in ports { LoopbackPort.release(port) }
                }
                for n in 1...3 {
                    let member = "member-\(n)"
                    let port = try LoopbackPort.hold()
                    ports.append(port)
                    let log = directory.appendingPathComponent("\(member).log")
                    let process = try CoordinatorHarness.launch(
                        broker: broker, statePath: directory.appendingPathComponent("\(member).sqlite").path, httpPort: port, log: log,
                        extraArguments: ["--partitioned", "--member-id", member, "--log-level", "info"])
                    processes[member] = process
                    try await CoordinatorHarness.waitUntilServing(port: port, process: process, log: log)
                }
                // Membership settles: all three online, exactly one owning the museum.
                try await recorder.wait("the three members agreeing on one owner", within: .seconds(60)) { entries in
                    let members = Self.members(entries, topics: topics)
                    return members.count == 3 && members.values.allSatisfy { $0.state == .online && $0.partitions != nil }
                        && members.values.filter { $0.partitions == ["museum"] }.count == 1
                        && members.values.filter { $0.partitions == [] }.count == 2
                }
                let owner = try #require(
                    Self.members(recorder.entries, topics: topics).values.first { $0.partitions == ["museum"] }?.member)
                #expect(owner == Rendezvous.owner(of: "museum", among: ["member-1", "member-2", "member-3"]))

                // Foreground phones (they report every simulated second) walking at twice real time.
                var configuration = LiveSimulation.Configuration(broker: broker.url, topology: topology, topics: topics, clients: 3)
                configuration.foreground = true
                configuration.duration = 60
                configuration.speedup = 2
                configuration.tick = 0.25
                configuration.seed = 16
                let walk = LiveSimulation(configuration: configuration)
                let simulation = Task { try await walk.run() }
                let phones = (0..<3).map { "\(configuration.clientPrefix)-\($0)" }
                // Mid-walk: the owner has answered every phone.
                try await recorder.wait("the owner's first sets for every phone", within: .seconds(60)) { entries in
                    let answered = Set(
                        entries.compactMap { entry -> String? in
                            guard !entry.message.retain, case .clientRegions(let id)? = try? topics.route(entry.message.topic),
                                let message = try? WireCoding.decode(
                                    RegionsMessage.self, from: entry.message.payload, topic: entry.message.topic),
                                message.coordinator == owner
                            else { return nil }
                            return id.rawValue
                        })
                    return answered.isSuperset(of: phones)
                }
                try await Task.sleep(for: .seconds(3))
                let ownerProcess = try #require(processes[owner])
                kill(ownerProcess.processIdentifier, SIGKILL)
                _ = await ownerProcess.exited()
                let killed = ContinuousClock.now
                // The survivors take over: each phone gets a set or an event from one of them.
                try await recorder.wait("every phone answered by a survivor", within: .seconds(60)) { entries in
                    Set(Self.answers(entries, topics: topics, after: killed).map(\.client)).isSuperset(of: phones)
                }
                let report = try await simulation.value
                let entries = recorder.entries

                // Every phone's first answer after the kill came within 10 s of it.
                for phone in phones {
                    let first = try #require(Self.answers(entries, topics: topics, after: killed).first { $0.client == phone })
                    #expect(first.at - killed <= .seconds(10), "\(phone) waited \(first.at - killed) for the survivors")
                }
                // Versions only increase (a QoS 1 redelivery of the same message aside), and no two
                // members published for one client within a second: neither in arrival order nor
                // by when they decided (the sets' `time`), for any two of a client's sets.
                problems = []
                // A payload seen before is a copy of that set (a QoS 1 redelivery, or a member's live
                // copy beside its retained message: CoordinatorService.enqueueLiveCopy), not a publication.
                var sets: [String: [(at: ContinuousClock.Instant, message: RegionsMessage, payload: [UInt8])]] = [:]
                var seen: [String: Set<[UInt8]>] = [:]
                for entry in entries where !entry.message.retain && !entry.message.payload.isEmpty {
                    guard case .clientRegions(let id)? = try? topics.route(entry.message.topic),
                        seen[id.rawValue, default: []].insert(entry.message.payload).inserted
                    else { continue }
                    let message = try WireCoding.decode(RegionsMessage.self, from: entry.message.payload, topic: entry.message.topic)
                    sets[id.rawValue, default: []].append((entry.at, message, entry.message.payload))
                }
                var publishers = Set<String>()
                for (client, list) in sets {
                    for (a, b) in zip(list, list.dropFirst()) {
                        if b.message.version <= a.message.version {
                            problems.append(
                                "\(client): \(a.message.version) (\(a.message.coordinator ?? "?")) then \(b.message.version) (\(b.message.coordinator ?? "?")), \(b.at - a.at) apart"
                            )
                        }
                        if a.message.coordinator != b.message.coordinator, b.at - a.at < .seconds(1) {
                            problems.append(
                                "\(client): \(a.message.coordinator ?? "?") and \(b.message.coordinator ?? "?") arrived \(b.at - a.at) apart"
                            )
                        }
                    }
                    for (i, a) in list.enumerated() {
                        for b in list[(i + 1)...] where a.message.coordinator != b.message.coordinator {
                            guard let ta = a.message.time, let tb = b.message.time, abs(tb.timeIntervalSince(ta)) < 1 else { continue }
                            problems.append(
                                "\(client): \(a.message.coordinator ?? "?") and \(b.message.coordinator ?? "?") decided \(abs(tb.timeIntervalSince(ta))) s apart"
                            )
                        }
                    }
                    for set in list { publishers.insert(set.message.coordinator ?? "(none)") }
                }
                #expect(problems.isEmpty, "\(problems.joined(separator: "; ")) — members' logs in \(directory.path)")
                let successor = Rendezvous.owner(of: "museum", among: processes.keys.filter { $0 != owner })
                #expect(
                    publishers.contains(owner) && successor.map(publishers.contains) == true, "the owner, then its successor: \(publishers)"
                )
                #expect(report.versionRepeats == 0, "\(report.summary) — members' logs in \(directory.path)")
                #expect(report.coverage >= 0.9, "\(report.summary) missed \(report.missed)")
                if report.versionRepeats > 0 || report.coverage < 0.9 { problems.append(report.summary) }
                for process in processes.values where process.isRunning {
                    kill(process.processIdentifier, SIGTERM)
                    _ = await process.exited()
                }
            }
        }
    }

    /// `regions` and `events` messages for clients after `instant`, in arrival order.
    static func answers(_ entries: [MessageLog.Entry], topics: Topics, after instant: ContinuousClock.Instant) -> [(
        client: String, at: ContinuousClock.Instant
    )] {
        entries.compactMap { entry in
            guard entry.at > instant, !entry.message.retain, !entry.message.payload.isEmpty else { return nil }
            switch try? topics.route(entry.message.topic) {
            case .clientRegions(let id)?, .clientEvents(let id)?: return (id.rawValue, entry.at)
            default: return nil
            }
        }
    }
}
