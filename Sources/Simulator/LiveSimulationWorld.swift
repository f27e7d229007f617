import Foundation
import Planner
import Topology
import WireProtocol

/// The simulated venue of a ``LiveSimulation``: walkers, what each phone monitors, what the
/// gateways hear, and the tallies. One actor, so the tick loop and the MQTT receiver agree.
///
/// Phones are ``SimulatedPhone``s (RegionSync on the fake iOS), suspended unless the
/// configuration says foreground: they detect region beacons through the ``BeaconRadio``, report
/// only while awake, apply the newest `regions` message when they run, and are heard by the
/// gateways only in the foreground (a suspended iPhone cannot advertise). Coverage is counted on
/// arrivals (``ArrivalCoverage``), as `simulate --offline` counts it. Tags monitor nothing (the
/// coordinator sends them no set): what is measured for them is the room the coordinator's room
/// events show against the room each tag is truly in (``PresenceScore``).
actor LiveWorld {
    struct Phone {
        var id: String
        var walker: Walker
        /// The phone (phones mode).
        var handset: SimulatedPhone? = nil
        /// Its own radio, drawn from the configuration's family (`nil`: the venue's radio).
        var radio: PhoneRadio? = nil
        var coverage = ArrivalCoverage()
        /// Tags: the set the coordinator published for it, by region id, its version, and the
        /// regions whose radius it is within.
        var monitored: [String: RegionRef] = [:]
        var version: UInt64 = 0
        var inside: Set<Int> = []
        var minor: UInt16
        /// Tags: the room the coordinator shows (its room events), and the score of it against the truth.
        var shownRoom: Int? = nil
        var presence = PresenceScore.Recorder()
    }

    let configuration: LiveSimulation.Configuration
    let topology: Topology
    let graph: WalkGraph
    var phones: [Phone] = []
    var phoneByID: [String: Int] = [:]
    var noise: SplitMix64
    var clock = 0.0
    var nextWindow = 0.0
    var gatewaySeq: [UInt64]
    var tally = LiveSimulationReport(
        seconds: 0, clients: 0, entries: 0, coveredEntries: 0, missed: [], adds: 0, removes: 0, metres: 0,
        regionsMessages: 0, versionRepeats: 0, versionGaps: 0, reportsSent: 0, sightingsSent: 0)
    let encoder = WireCoding.makeEncoder()
    let epoch = Date()
    let radio: BeaconRadio
    /// Room index by id (``Topology/areas``), for the tags' room events.
    let roomByID: [String: Int]
    /// Arrivals of the phones (phones mode).
    var arrivals = SimulationTally()
    /// The newest `regions` message per phone not yet handed to it (the receiver runs between ticks).
    var inbox: [Int: RegionsMessage] = [:]
    /// The newest version each client was sent.
    var sentVersion: [Int: UInt64] = [:]
    /// Per phone, the member that published its newest `regions` (partitioned coordinators).
    var sentCoordinator: [Int: String] = [:]
    /// Per phone, every version received and the member that published it (copies are skipped).
    var receivedSets: [Int: [UInt64: String]] = [:]
    /// Phones' missed entries: phone, region and simulated second (the first 50).
    var missedEntries: [String] = []

    init(configuration: LiveSimulation.Configuration) throws {
        self.configuration = configuration
        self.topology = configuration.topology
        self.graph = try WalkGraph(topology: configuration.topology)
        self.noise = SplitMix64(seed: configuration.seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        self.radio = BeaconRadio(topology: configuration.topology, seed: configuration.seed, family: configuration.family ?? .declared)
        self.roomByID = Dictionary(configuration.topology.areas.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.gatewaySeq = Array(repeating: 0, count: configuration.topology.gateways.count)
        for i in 0..<max(0, configuration.clients) {
            let walker: Walker
            if configuration.routes.isEmpty {
                walker = Walker(graph: graph, simulationSeed: configuration.seed, client: i)  // client i of simulate --offline
            } else {
                walker = try Walker(graph: graph, route: configuration.routes[i % configuration.routes.count], speed: configuration.speed)
            }
            let minor = UInt16(truncatingIfNeeded: i)
            let id =
                configuration.mode == .phones
                ? "\(configuration.clientPrefix)-\(i)"
                : SimulatedTag(minor: minor).client
            phoneByID[id] = phones.count
            phones.append(Phone(id: id, walker: walker, minor: minor))
        }
        tally.clients = phones.count
    }

    func time(_ seconds: Double) -> Date { epoch.addingTimeInterval(seconds) }

    /// The position of client `id` among the clients.
    func index(of id: String) -> Int? { phoneByID[id] }

    /// The phones whose app runs now (phones mode).
    func awakePhones() -> Set<String> {
        Set(phones.compactMap { phone in phone.handset.map { $0.isAwake(at: clock) } == true ? phone.id : nil })
    }

    /// Whether the gateways publish what they hear of the clients (always for tags; for phones
    /// when they advertise an identity, which only a phone in the foreground can).
    var hearsClients: Bool { configuration.mode == .tags || (configuration.phonesAdvertise && configuration.foreground) }

    /// The major of the identity a client advertises.
    var advertisedMajor: UInt16 {
        configuration.mode == .tags ? LiveSimulation.Configuration.tagMajor : LiveSimulation.Configuration.tagMajor + 1
    }

    /// The first messages: every phone is launched (awake once) and reports where it starts.
    func start() async -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        for i in phones.indices {
            phones[i].inside = radio.regionsWithin(phones[i].walker.position)
            let mode: SimulatedPhone.Mode = configuration.foreground ? .foreground : .suspended
            if configuration.mode == .phones, let family = configuration.family {
                var condition = family.draw(seed: configuration.seed, client: i)
                if let budget = configuration.budget { condition.budget = budget }
                phones[i].handset = await SimulatedPhone(
                    mode: mode, slots: 20, condition: condition, reportInterval: configuration.reportInterval, epoch: epoch,
                    seed: configuration.seed, client: i)
                phones[i].radio = PhoneRadio(radio: radio, condition: condition, client: i, tick: configuration.tick)
            } else if configuration.mode == .phones {
                let appRegions = configuration.budget.map { max(0, 20 - $0) } ?? configuration.appRegions
                phones[i].handset = await SimulatedPhone(
                    mode: mode, slots: 20, appRegions: appRegions, wakeDuration: configuration.wakeDuration,
                    reportInterval: configuration.reportInterval, epoch: epoch)
            }
        }
        if configuration.mode == .phones { out += await stepPhones(to: 0) }
        if hearsClients { out += windows() }
        return out
    }

    /// Advances every phone to `seconds`: its radio, iOS, the app when it runs.
    private func stepPhones(to seconds: Double) async -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        let tick = Int((seconds / configuration.tick).rounded())
        for i in phones.indices {
            guard var handset = phones[i].handset else { continue }
            var coverage = phones[i].coverage
            let position = phones[i].walker.position
            if let message = inbox.removeValue(forKey: i) { handset.deliver(message, at: seconds) }
            let heard = phones[i].radio?.readings(at: position, tick: tick) ?? radio.readings(at: position, client: i, tick: tick)
            await handset.detect(heard.compactMap { topology.regions[$0.region].identity.beacon }, at: seconds)
            let held = handset.held
            let (missedBefore, namedBefore) = (arrivals.entries - arrivals.covered, arrivals.missedRegions.count)
            coverage.step(
                now: seconds, detected: heard.map(\.region), withinNow: radio.regionsWithin(position), counting: seconds > 0,
                tally: &arrivals, id: { self.topology.regions[$0].id }, monitored: { held.contains(self.topology.regions[$0].id) })
            // Which phone missed which region when, as for tags: a missed entry is diagnosed from its time.
            if arrivals.entries - arrivals.covered > missedBefore, missedEntries.count < 50 {
                let region = arrivals.missedRegions.count > namedBefore ? arrivals.missedRegions.last! : "?"
                missedEntries.append("\(phones[i].id) \(region) at \(Int(seconds))s")
            }
            _ = await handset.applyDue(at: seconds)
            // All of them, as RegionSync reports what Core Location ranged (the coordinator plans with
            // every beacon a phone ranged, and reads a region it did not as quiet).
            let ranged = heard.sorted { $0.rssi > $1.rssi }.map { reading in
                let identity = topology.regions[reading.region].identity
                return RangedBeacon(uuid: identity.uuidString, major: identity.major ?? 0, minor: identity.minor ?? 0, rssi: reading.rssi)
            }
            let advertising =
                configuration.phonesAdvertise && configuration.foreground
                ? AdvertisedIdentity(uuid: LiveSimulation.Configuration.tagUUID, major: advertisedMajor, minor: phones[i].minor) : nil
            if let report = await handset.report(at: seconds, ranged: Array(ranged), advertising: advertising),
                let id = Identifier(validating: phones[i].id), let payload = try? Array(encoder.encode(report))
            {
                tally.reportsSent += 1
                out.append((configuration.topics.clientReport(id), payload))
            }
            phones[i].handset = handset
            phones[i].coverage = coverage
        }
        return out
    }

    /// Advances every walker to `seconds`, producing the reports or sightings that causes.
    func step(to seconds: Double) async -> [(String, [UInt8])] {
        let dt = seconds - clock
        clock = seconds
        var out: [(String, [UInt8])] = []
        for i in phones.indices {
            let before = phones[i].walker.distanceWalked
            phones[i].walker.advance(by: dt)
            tally.metres += phones[i].walker.distanceWalked - before
        }
        if configuration.mode == .phones {
            out += await stepPhones(to: seconds)
            if hearsClients, seconds >= nextWindow { out += windows() }
            return out
        }
        // Tags: the room shown against the true room.
        for i in phones.indices {
            phones[i].presence.record(time: seconds, truth: topology.room(at: phones[i].walker.position), shown: phones[i].shownRoom)
        }
        if hearsClients, seconds >= nextWindow {
            out += windows()
        }
        return out
    }

    /// The retained status of every gateway this world plays (none when it plays none), as an
    /// agent publishes it: `online` when it starts, `offline` when it stops.
    func gatewayStatuses(_ state: GatewayStatus.State) -> [(String, [UInt8])] {
        guard hearsClients else { return [] }
        let status = GatewayStatus(
            state: state, version: BeaconFleetVersion.current, adapter: "simulated", started: epoch, time: time(clock))
        guard let payload = try? WireCoding.encode(status) else { return [] }
        return topology.gateways.compactMap { gateway in
            Identifier(validating: gateway.id).map { (configuration.topics.gatewayStatus($0), payload) }
        }
    }

    /// One window of every gateway: the tags it hears.
    private func windows() -> [(String, [UInt8])] {
        nextWindow = clock + configuration.window
        var out: [(String, [UInt8])] = []
        for (g, gateway) in topology.gateways.enumerated() {
            var sightings: [Sighting] = []
            for phone in phones where phone.handset?.isAwake(at: clock) ?? true {
                let floors =
                    (topology.levelIndex(id: gateway.position.level) ?? 0) - (topology.levelIndex(id: phone.walker.position.level) ?? 0)
                let d = distance(gateway.position, phone.walker.position, height: (gateway.height ?? 2.5) - 1)
                guard let rssi = configuration.radio.reading(distance: d, floors: floors, standardNormal: normal()) else { continue }
                sightings.append(
                    SimulatedTag(major: advertisedMajor, minor: phone.minor).sighting(
                        rssi: Double(rssi), rssiMax: rssi, count: 5, txPower: -59))
            }
            gatewaySeq[g] += 1
            let batch = SightingsBatch(
                gateway: gateway.id, seq: gatewaySeq[g], start: time(clock - configuration.window), end: time(clock), sightings: sightings)
            tally.sightingsSent += sightings.count
            guard let id = Identifier(validating: gateway.id), let payload = try? Array(encoder.encode(batch)) else { continue }
            out.append((configuration.topics.sightings(id), payload))
        }
        return out
    }

    /// A `regions` message for a client: applied as the phone would (diff when it is the next
    /// version, whole set otherwise); an `add` for a region the phone is inside fires an enter.
    func receive(client: String, payload: [UInt8], retained: Bool) -> [(String, [UInt8])] {
        guard let i = phoneByID[client], !payload.isEmpty,
            let message = try? WireCoding.decode(RegionsMessage.self, from: payload, topic: client)
        else { return [] }
        // The same set twice (a partitioned member's live copy and its retained message, from the
        // member that published that version): a copy, neither a repeat nor a new message.
        if receivedSets[i, default: [:]][message.version] == (message.coordinator ?? "") {
            tally.copies += 1
            return []
        }
        receivedSets[i, default: [:]][message.version] = message.coordinator ?? ""
        tally.regionsMessages += 1
        if let last = sentVersion[i], !retained {
            if message.version <= last {
                tally.versionRepeats += 1
            } else if message.version > last + 1 {
                // A new partitioned member continues from the clock (docs/wire.md, Versions): a handover, not a lost set.
                if let from = sentCoordinator[i], let to = message.coordinator, from != to {
                    tally.handovers += 1
                } else {
                    tally.versionGaps += 1
                }
            }
        }
        if message.version > sentVersion[i] ?? 0 { sentCoordinator[i] = message.coordinator }
        sentVersion[i] = max(sentVersion[i] ?? 0, message.version)
        if configuration.mode == .phones {
            // The phone reads it when it runs (it is retained; the newest one wins).
            if message.version > inbox[i]?.version ?? 0 { inbox[i] = message }
            return []
        }
        guard message.version > phones[i].version else { return [] }
        let before = Set(phones[i].monitored.keys)
        if message.version == phones[i].version + 1 {
            for id in message.remove { phones[i].monitored[id] = nil }
            for ref in message.add { phones[i].monitored[ref.id] = ref }
        } else {
            phones[i].monitored = Dictionary(message.regions.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        }
        // iOS refuses beyond 20.
        while phones[i].monitored.count > 20 { phones[i].monitored.removeValue(forKey: phones[i].monitored.keys.sorted().last!) }
        phones[i].version = message.version
        let after = Set(phones[i].monitored.keys)
        tally.adds += after.subtracting(before).count
        tally.removes += before.subtracting(after).count
        return []
    }

    /// A client event: a tag's room enter moves the room it is shown in; an exit empties it.
    func receiveEvent(client: String, payload: [UInt8]) {
        guard let i = phoneByID[client], let event = try? WireCoding.decode(ClientEvent.self, from: payload, topic: client),
            let room = event.room, let index = roomByID[room]
        else { return }
        if event.type == .enter {
            phones[i].shownRoom = index
        } else if event.type == .exit, phones[i].shownRoom == index {
            phones[i].shownRoom = nil
        }
    }

    func report(at seconds: Double) -> LiveSimulationReport {
        var result = tally
        result.seconds = seconds
        if configuration.mode == .tags, !topology.areas.isEmpty {
            var score = PresenceScore()
            for phone in phones {
                var recorder = phone.presence
                score.merge(recorder.finish())
            }
            result.presence = score
        }
        if configuration.mode == .phones {
            result.entries = arrivals.entries
            result.coveredEntries = arrivals.covered
            result.missed = missedEntries
            result.adds = phones.reduce(0) { $0 + ($1.handset?.started ?? 0) }
            result.removes = phones.reduce(0) { $0 + ($1.handset?.stopped ?? 0) }
            result.wakes = phones.reduce(0) { $0 + ($1.handset?.wakes ?? 0) }
        }
        return result
    }

    private func distance(_ a: VenuePoint, _ b: VenuePoint, height: Double) -> Double {
        let dx = a.x - b.x
        let dy = a.y - b.y
        return (dx * dx + dy * dy + height * height).squareRoot()
    }

    /// A standard normal draw (Box–Muller).
    private func normal() -> Double {
        let u1 = max(Double(noise.next() >> 11) / Double(1 << 53), 1e-12)
        let u2 = Double(noise.next() >> 11) / Double(1 << 53)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
