import Foundation
public import MQTT
import Planner
public import Topology
public import WireProtocol

/// Walkers over MQTT against a running coordinator: as phones (reports with ranged beacons,
/// enter/exit events and their monitored list; they apply each `regions` message they receive)
/// or as tags heard by simulated gateways (sightings per the contract). It measures what a venue
/// would see: coverage (region entries that found the region already monitored), churn (adds and
/// removes per 100 m walked) and whether versions arrive +1 without repeats.
///
/// ```swift
/// let simulation = LiveSimulation(configuration: .init(broker: url, topology: venue, topics: try Topics(), clients: 10))
/// let report = try await simulation.run { print($0.summary) }
/// ```
public struct LiveSimulation: Sendable {
    /// How the clients are seen by the coordinator.
    public enum Mode: String, Sendable, CaseIterable {
        /// Phones that report over MQTT and apply their `regions`.
        case phones
        /// Tags (no app) heard by the topology's gateways, which publish sightings.
        case tags
    }

    public struct Configuration: Sendable {
        public var broker: MQTTConfiguration
        public var topology: Topology
        public var topics: Topics
        public var clients: Int
        public var mode: Mode = .phones
        /// Seconds of simulated time to run (the run ends earlier if cancelled).
        public var duration: Double = 120
        /// Simulated seconds per real second.
        public var speedup: Double = 1
        /// Simulated seconds per step.
        public var tick: Double = 0.2
        public var seed: UInt64 = 1
        /// Scripted walks (node ids), one per client in turn; random walks when empty.
        public var routes: [[String]] = []
        /// Walking speed for scripted walks, m/s.
        public var speed: Double = 1.3
        /// The budget phones ask for (nil: the coordinator's).
        public var budget: Int?
        /// The family each phone's radio and iOS timings are drawn from, as `simulate --offline`
        /// draws them (phone *i* gets offline's client *i*'s condition with the same seed; the
        /// beacons their true powers); `nil`: the venue files' radio and a prompt iOS with
        /// ``wakeDuration`` and ``appRegions``.
        public var family: PhoneFamily?
        /// Seconds an iOS app stays awake after a region event (it ranges and reports meanwhile),
        /// without a ``family``.
        public var wakeDuration: Double = 10
        /// Phones run in the foreground (awake, ranging and advertising throughout) instead of
        /// suspended between region events.
        public var foreground = false
        /// Slots of iOS's 20 the app's own regions take (when neither ``budget`` nor ``family`` is given).
        public var appRegions = 2
        /// Seconds between reports while awake.
        public var reportInterval: Double = 1
        /// Whether phones in the foreground also advertise an iBeacon identity (declared in their
        /// reports) that the topology's gateways hear; a suspended iPhone cannot advertise.
        public var phonesAdvertise = true
        /// Seconds between gateway windows.
        public var window: Double = 1
        public var radio = RadioModel()
        /// Suspended phones report on a connection of their own, opened for each wake and closed
        /// when the app is suspended again (IOS.md; ``PhoneConnections``); `false`: every report goes
        /// out on the simulation's one connection. Phones in the foreground and tags always use that one.
        public var connectionPerWake = true
        /// Phones send each report also at QoS 0, on a second connection of the wake (RegionSync's
        /// `Options.reportCopy`: for a NATS cluster).
        public var reportCopies = false
        /// Client ids are `PREFIX-N` (phones) or the tag identity `UUID.MAJOR.N` (tags).
        public var clientPrefix = "sim-phone"
        public static let tagUUID = "5A1D0000-BEAC-4F1E-9E70-000000000001"
        public static let tagMajor: UInt16 = 1000

        public init(broker: BrokerURL, topology: Topology, topics: Topics, clients: Int, mode: Mode = .phones) {
            self.broker = MQTTConfiguration(url: broker, clientID: MQTTConfiguration.randomClientID(prefix: "beaconfleet-simulate"))
            self.broker.maxQueued = 100_000
            self.topology = topology
            self.topics = topics
            self.clients = clients
            self.mode = mode
        }
    }

    public let configuration: Configuration

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Runs the walk; `progress` is called about every 5 simulated seconds and at the end.
    public func run(progress: @escaping @Sendable (LiveSimulationReport) -> Void = { _ in }) async throws -> LiveSimulationReport {
        let world = try LiveWorld(configuration: configuration)
        let client = try MQTTClient(configuration: configuration.broker)
        try client.connect()
        let messages = client.messages
        try await client.connected()
        try await client.subscribe(configuration.topics.allClientRegions, qos: .atLeastOnce)
        // Tags are located, not planned: what they show is their room (the coordinator's room events).
        if configuration.mode == .tags { try await client.subscribe(configuration.topics.allClientEvents, qos: .atLeastOnce) }
        let receiver = Task {
            for await message in messages {
                switch try? configuration.topics.route(message.topic) {
                case .clientRegions(let id)?:
                    let outgoing = await world.receive(client: id.rawValue, payload: message.payload, retained: message.retain)
                    Self.send(outgoing, through: client)
                case .clientEvents(let id)?:
                    await world.receiveEvent(client: id.rawValue, payload: message.payload)
                default: continue
                }
            }
        }
        defer { receiver.cancel() }
        let resubscriber = Task { await Self.resubscribe(client, to: configuration.topics.allClientRegions) }
        defer { resubscriber.cancel() }
        let phones =
            configuration.mode == .phones && !configuration.foreground && configuration.connectionPerWake
            ? PhoneConnections(base: configuration.broker, reportCopy: configuration.reportCopies) : nil
        let version = client.negotiatedProtocolVersion
        // Reports on their phone's connection when phones have their own, everything else on the simulation's.
        func send(_ outgoing: [(String, [UInt8])]) async {
            guard let phones else {
                if configuration.reportCopies {
                    for (topic, payload) in outgoing where topic.hasSuffix("/report") {
                        try? client.enqueue(topic: topic, payload: payload, qos: .atMostOnce)
                    }
                }
                return Self.send(outgoing, through: client)
            }
            for (topic, payload) in outgoing {
                if case .clientReport(let id)? = try? configuration.topics.route(topic), let index = await world.index(of: id.rawValue) {
                    await phones.send(payload, topic: topic, phone: id.rawValue, index: index, version: version)
                } else {
                    Self.send([(topic, payload)], through: client)
                }
            }
            await phones.suspend(except: await world.awakePhones())
        }
        // The gateways this simulation plays say they are up, as agents do, so that Home Assistant,
        // the live map and `/api/gateways` show them as they would real ones.
        Self.send(await world.gatewayStatuses(.online), through: client, retain: true)
        let clock = ContinuousClock()
        let start = clock.now
        var simulated = 0.0
        var lastProgress = 0.0
        await send(await world.start())
        while simulated < configuration.duration, !Task.isCancelled {
            simulated += configuration.tick
            let due = start + .seconds(simulated / max(configuration.speedup, 0.001))
            try? await Task.sleep(until: due, clock: clock)
            await send(await world.step(to: simulated))
            if simulated - lastProgress >= 5 {
                lastProgress = simulated
                progress(await world.report(at: simulated))
            }
        }
        // Let the last reports go out and the last decisions arrive (bounded: the broker may be gone).
        func drain() async { for _ in 0..<40 where client.outstandingMessageCount > 0 { try? await Task.sleep(for: .milliseconds(50)) } }
        await drain()
        for _ in 0..<40 where await phones?.outstanding ?? 0 > 0 { try? await Task.sleep(for: .milliseconds(50)) }
        try? await Task.sleep(for: .milliseconds(300))
        let report = await world.report(at: simulated)
        progress(report)
        // Its gateways stop, as agents that stop say (after the report: what they cause is not the walk's).
        Self.send(await world.gatewayStatuses(.offline), through: client, retain: true)
        await drain()
        receiver.cancel()
        await phones?.closeAll()
        await client.disconnect()
        return report
    }

    /// After every reconnection, subscribes to `filter` again until the broker grants it. The
    /// client re-subscribes by itself, but a NATS node answers that SUBSCRIBE seconds late or
    /// refuses it while JetStream elects leaders after another node died (docs/mqtt.md), and a
    /// refused subscription is forgotten: the phones would hear no set for the rest of the walk.
    static func resubscribe(_ client: MQTTClient, to filter: String) async {
        var lost = false
        for await state in client.connectionStates {
            switch state {
            case .connected where lost:
                lost = false
                while !Task.isCancelled {
                    if (try? await client.subscribe(filter, qos: .atLeastOnce)) != nil { break }
                    try? await Task.sleep(for: .seconds(1))
                }
            case .disconnected: lost = true
            default: break
            }
            if Task.isCancelled { return }
        }
    }

    static func send(_ outgoing: [(String, [UInt8])], through client: MQTTClient, retain: Bool = false) {
        for (topic, payload) in outgoing {
            do {
                try client.enqueue(topic: topic, payload: payload, qos: .atLeastOnce, retain: retain)
            } catch {
                // The queue is bounded: a dropped report is what a phone out of coverage does too.
            }
        }
    }
}

/// What a live simulation observed.
public struct LiveSimulationReport: Sendable, Codable, Equatable {
    public var seconds: Double
    public var clients: Int
    /// Phones: arrivals (within a region's radius), and those whose region was monitored at some
    /// moment of the approach (IOS.md). Tags: entries, and those that found the region monitored.
    public var entries: Int
    public var coveredEntries: Int
    /// Entries that found the region unmonitored: `client region` pairs, first 50.
    public var missed: [String]
    public var adds: Int
    public var removes: Int
    public var metres: Double
    public var regionsMessages: Int
    /// `regions` versions that repeated or went backwards, and ones that skipped ahead.
    public var versionRepeats: Int
    public var versionGaps: Int
    /// Skips ahead at a change of partitioned member (`coordinator`): a handover, not a lost set.
    public var handovers: Int = 0
    /// A set received again from the member that published it (a partitioned member's live copy
    /// beside its retained message): skipped, not counted in `regionsMessages`.
    public var copies: Int = 0
    public var reportsSent: Int
    public var sightingsSent: Int
    /// Region events that ran a suspended phone's app.
    public var wakes: Int = 0
    /// Tags: how well the room the coordinator showed (its room events) followed the true room
    /// (nil for phones, and for a venue without rooms).
    public var presence: PresenceScore? = nil

    /// Entries found monitored, as a share (1 when there were none).
    public var coverage: Double { entries == 0 ? 1 : Double(coveredEntries) / Double(entries) }
    /// Adds plus removes per 100 m walked.
    public var churnPer100m: Double { metres > 0 ? Double(adds + removes) / metres * 100 : 0 }

    public var summary: String {
        if let presence {
            // Tags monitor nothing: their figures are the room shown.
            func delay(_ value: Double?) -> String {
                guard let value else { return "-" }
                return value.isFinite ? String(format: "%.1f s", value) : "never"
            }
            return String(
                format: "t=%.0fs clients=%d room correct %@, false room changes %@/h, room shown after p50 %@ p90 %@ (%d visits)",
                seconds, clients, presence.correctShare.map { String(format: "%.2f %%", $0 * 100) } ?? "-",
                presence.falseChangesPerHour.map { String(format: "%.2f", $0) } ?? "-", delay(presence.detection(percentile: 50)),
                delay(presence.detection(percentile: 90)), presence.visits)
        }
        return String(
            format:
                "t=%.0fs clients=%d entries=%d coverage=%.2f%% churn=%.1f/100m wakes=%.1f/100m regions=%d versions: %d repeated, %d skipped, %d handovers, %d copies",
            seconds, clients, entries, coverage * 100, churnPer100m, metres > 0 ? Double(wakes) * 100 / metres : 0, regionsMessages,
            versionRepeats, versionGaps, handovers, copies)
    }
}
