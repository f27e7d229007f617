import Coordinator
import Etcd
import Foundation
import Testing
import Topology
import WireProtocol

/// Rendezvous hashing, the partition map, ownership and the fence, without a broker or etcd.
@Suite("Partitioned coordinators: ownership and the fence")
struct PartitionTests {
    let partitions = (0..<400).map { "venue-\($0)" }

    func owners(_ members: [String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: partitions.map { ($0, Rendezvous.owner(of: $0, among: members)!) })
    }

    @Test("the owner depends on the members, not on the order they are listed in, and is the same in every call")
    func stable() {
        let members = ["coord-a", "coord-b", "coord-c", "coord-d"]
        let first = owners(members)
        #expect(owners(members.reversed()) == first)
        #expect(owners(members.shuffled()) == first)
        #expect(Rendezvous.weight(member: "coord-a", partition: "museum") == Rendezvous.weight(member: "coord-a", partition: "museum"))
        #expect(Rendezvous.owner(of: "museum", among: [String]()) == nil)
    }

    @Test("the partitions spread over the members")
    func balanced() {
        let members = ["coord-a", "coord-b", "coord-c", "coord-d"]
        let counts = Dictionary(grouping: owners(members).values, by: { $0 }).mapValues(\.count)
        for member in members { #expect((counts[member] ?? 0) >= 60, "\(counts)") }  // 100 expected each
    }

    @Test("a member leaving moves only its partitions; one joining takes partitions only for itself")
    func minimalMovement() {
        let before = owners(["coord-a", "coord-b", "coord-c", "coord-d"])
        let left = owners(["coord-a", "coord-b", "coord-d"])
        for partition in partitions where before[partition] != "coord-c" { #expect(left[partition] == before[partition]) }
        #expect(partitions.contains { before[$0] == "coord-c" })
        let joined = owners(["coord-a", "coord-b", "coord-c", "coord-d", "coord-e"])
        var moved = 0
        for partition in partitions where joined[partition] != before[partition] {
            #expect(joined[partition] == "coord-e")
            moved += 1
        }
        #expect(moved > 0 && moved < partitions.count / 2, "moved \(moved)")
    }

    @Test("member ids are topic levels on every broker: no '.' or space")
    func memberIDs() throws {
        #expect(Topics.isValidMember("coord-1_a"))
        #expect(!Topics.isValidMember("coord.1"))
        #expect(!Topics.isValidMember("coord 1"))
        #expect(throws: PartitionSpecError.self) { try PartitionConfiguration(member: "a.b", coordination: Self.etcd) }
        let topics = try Topics()
        let topic = topics.coordinatorMember(try Identifier("coord-1"))
        #expect(topic == "beaconfleet/v1/coordinators/coord-1/status")
        #expect(topics.coordinatorMember(in: topic)?.rawValue == "coord-1")
        #expect(topics.coordinatorMember(in: topics.coordinatorStatus) == nil)
    }

    @Test("level groups: every level in exactly one; gateways and regions in their level's partition")
    func levelGroups() throws {
        let mall = try Topology.load(directory: CoordinatorHarness.museum.deletingLastPathComponent().appendingPathComponent("mall"))
        let whole = try PartitionMap(topology: mall)
        #expect(whole.names == ["mall"])
        let split = try PartitionMap(topology: mall, spec: "L1|L2")
        #expect(split.names == ["mall:L1", "mall:L2"])
        for gateway in mall.gateways { #expect(split.partition(ofGateway: gateway.id) == (gateway.position.level == "L1" ? 0 : 1)) }
        #expect(split.gateways(of: 0).count + split.gateways(of: 1).count == mall.gateways.count)
        #expect(throws: PartitionSpecError.self) { try PartitionMap(topology: mall, spec: "L1") }
        #expect(throws: PartitionSpecError.self) { try PartitionMap(topology: mall, spec: "L1|L1,L2") }
        #expect(throws: PartitionSpecError.self) { try PartitionMap(topology: mall, spec: "L1|L3") }
    }

    @Test("a phone crossing from another member's partition into this one's is answered only a crossing hold after its report there")
    func crossingHold() throws {
        let mall = try Topology.load(directory: CoordinatorHarness.museum.deletingLastPathComponent().appendingPathComponent("mall"))
        let map = try PartitionMap(topology: mall, spec: "L1|L2")
        // Two members that split the mall's two levels between them; this one owns L2.
        let pair = try #require(
            (0..<50).lazy.map { ["m\($0)", "n\($0)"] }.first { pair in
                Set(map.names.map { Rendezvous.owner(of: $0, among: pair)! }).count == 2
            })
        let member = Rendezvous.owner(of: "mall:L2", among: pair)!
        let other = pair.first { $0 != member }!
        _ = other
        let ownership = PartitionOwnership(configuration: try PartitionConfiguration(member: member, coordination: Self.etcd), map: map)
        _ = ownership.hold(1, token: 7)
        ownership.leaseValid(until: .now + .seconds(60))
        let served = Date()
        #expect(ownership.serves(1) && !ownership.serves(0))
        func report(_ region: String, at time: Date) -> Int {
            ownership.partition(ofReport: ClientReport(events: [RegionEvent(type: .enter, region: region)]), client: "p", now: time) { _ in
                nil
            }
        }
        // In L1 (the other member's), then in L2 30 ms later: not yet.
        #expect(report("L1-concourse-01", at: served) == 0)
        let crossed = served.addingTimeInterval(0.03)
        #expect(report("L2-concourse-01", at: crossed) == 1)
        #expect(!ownership.serves(client: "p", in: 1, now: crossed))
        #expect(!ownership.serves(client: "p", in: 1, now: served.addingTimeInterval(PartitionOwnership.crossingHold - 0.01)))
        #expect(ownership.serves(client: "p", in: 1, now: served.addingTimeInterval(PartitionOwnership.crossingHold + 0.01)))
        // Its next report in L2, and a crossing long after its last report in L1: answered at once.
        let later = served.addingTimeInterval(5)
        #expect(report("L2-concourse-01", at: later) == 1 && ownership.serves(client: "p", in: 1, now: later))
        #expect(report("L1-concourse-01", at: later.addingTimeInterval(1)) == 0)
        let back = later.addingTimeInterval(3)
        #expect(report("L2-concourse-01", at: back) == 1 && ownership.serves(client: "p", in: 1, now: back))
    }

    @Test("a phone's answer belongs to the partition its report went to, not to its estimate's level; a set names its partition")
    func answersFollowReports() throws {
        let mall = try Topology.load(directory: CoordinatorHarness.museum.deletingLastPathComponent().appendingPathComponent("mall"))
        let map = try PartitionMap(topology: mall, spec: "L1|L2")
        let ownership = PartitionOwnership(configuration: try PartitionConfiguration(member: "m", coordination: Self.etcd), map: map)
        _ = ownership.hold(1, token: 7)  // this member holds L2
        ownership.leaseValid(until: .now + .seconds(60))
        func set(level: String, partition: String? = nil, token: UInt64? = nil) -> RegionsMessage {
            var message = regions(3, by: "n", token: token)
            message.position = Position(x: 0, y: 0, level: level)
            message.partition = partition
            return message
        }
        // On the stair: the report ranges more of L1 (the level it leaves) while the estimate
        // already stands on L2. The answer is L1's member's, wherever the estimate stands.
        let report = ClientReport(events: [
            RegionEvent(type: .enter, region: "L1-concourse-01"), RegionEvent(type: .enter, region: "L2-concourse-01"),
        ])
        let ranged = ownership.partition(ofReport: report, client: "p") { _ in "L1-concourse-02" }
        #expect(ranged == 0)
        #expect(ownership.partition(of: .regions(client: "p", set(level: "L2"))) == 0)
        // A tag (no report) is where its estimate is.
        #expect(ownership.partition(of: .regions(client: "t", set(level: "L2"))) == 1)
        // L1's member's set for the phone, placed on L2, under L1's token (above this member's L2
        // token): another partition's, so no fence of L2.
        #expect(ownership.seen(set(level: "L2", partition: "mall:L1", token: 50), client: "q") == .adopt)
        #expect(ownership.serves(1))
        // The same set naming L2 is a newer owner of L2.
        #expect(ownership.seen(set(level: "L2", partition: "mall:L2", token: 50), client: "q") == .fenced(partition: 1, token: 50))
        // A phone this member has no report of yet is where the set's owner placed it.
        #expect(ownership.seen(set(level: "L1", partition: "mall:L2"), client: "r") == .adopt)
        #expect(ownership.partition(ofClient: "r", level: nil) == 1)
    }

    static let etcd = try! EtcdEndpoints(parsing: "etcd://127.0.0.1:2379")

    /// A member of the museum (one partition) holding it under token 10, its lease valid for a minute.
    /// Member `a` of the museum, its lease valid, holding the museum under `token` (`nil`: not holding it).
    func owner(token: UInt64? = 10) throws -> PartitionOwnership {
        let museum = try Topology.load(directory: CoordinatorHarness.museum)
        let ownership = PartitionOwnership(
            configuration: try PartitionConfiguration(member: "a", coordination: Self.etcd), map: try PartitionMap(topology: museum))
        if let token { _ = ownership.hold(0, token: token) }
        ownership.leaseValid(until: .now + .seconds(60))
        return ownership
    }

    func regions(_ version: UInt64, by member: String, token: UInt64?) -> RegionsMessage {
        var message = RegionsMessage(version: version, budget: 20, regions: [], add: [], remove: [], position: nil, reason: "moved")
        message.coordinator = member
        message.token = token
        return message
    }

    @Test("holding and releasing: a change when the owned set changes, none when a hold only confirms")
    func holdAndRelease() throws {
        let museum = try Topology.load(directory: CoordinatorHarness.museum)
        let ownership = PartitionOwnership(
            configuration: try PartitionConfiguration(member: "a", coordination: Self.etcd), map: try PartitionMap(topology: museum))
        #expect(ownership.setLive(["a", "b"]).map { $0.live == ["a", "b"] && $0.gained.isEmpty && $0.owned.isEmpty } == true)
        #expect(ownership.setLive(["a", "b"]) == nil)
        #expect(ownership.hold(0, token: 4)?.gained == [0])
        #expect(ownership.hold(0, token: 4) == nil)
        #expect(ownership.token(of: 0) == 4)
        #expect(!ownership.serves(0), "no lease known valid yet")
        ownership.leaseValid(until: .now + .seconds(5))
        #expect(ownership.serves(0))
        #expect(ownership.release(0)?.lost == [0])
        #expect(ownership.release(0) == nil)
        #expect(!ownership.serves(0) && ownership.token(of: 0) == nil)
    }

    @Test("self-fencing: nothing is served once the lease is not known valid, and again once it is renewed")
    func selfFence() throws {
        let ownership = try owner()
        #expect(ownership.serves(0) && ownership.leaseIsValid)
        ownership.leaseValid(until: .now - .milliseconds(1))
        #expect(!ownership.serves(0) && !ownership.leaseIsValid)
        #expect(ownership.owns(0), "still held: the lease has not expired in etcd, so nobody else holds it")
        ownership.leaseValid(until: .now + .seconds(2))
        #expect(ownership.serves(0))
    }

    @Test("the fence: a higher token for a partition held stops it at once; its own echo, lower tokens and none do not")
    func fence() throws {
        let ownership = try owner()
        #expect(ownership.seen(regions(11, by: "a", token: 10), client: "p") == .own)
        #expect(ownership.seen(regions(12, by: "b", token: 3), client: "p") == .adopt, "the previous owner's late set")
        #expect(ownership.seen(regions(13, by: "b", token: nil), client: "p") == .adopt)
        #expect(ownership.serves(0))
        #expect(ownership.seen(regions(14, by: "b", token: 12), client: "p") == .fenced(partition: 0, token: 12))
        #expect(!ownership.serves(0) && ownership.owned().fenced == [0])
        #expect(ownership.seen(regions(15, by: "b", token: 12), client: "q") == .adopt, "fenced once per token")
        // Held again under a token above the other's (claimed anew in etcd): served.
        _ = ownership.hold(0, token: 20)
        #expect(ownership.serves(0) && ownership.owned().fenced.isEmpty)
    }

    @Test("a token from another etcd history, seen before the claim, fences until etcd says the key is still ours")
    func unfence() throws {
        let ownership = try owner(token: nil)
        // A set retained from an etcd cluster since recreated: its token is above any of this one's.
        #expect(ownership.seen(regions(11, by: "b", token: 18), client: "p") == .adopt)
        _ = ownership.hold(0, token: 7)
        #expect(!ownership.serves(0) && ownership.owned().fenced == [0])
        #expect(!ownership.unfence(0, token: 6), "not held under that token")
        #expect(ownership.unfence(0, token: 7))
        #expect(ownership.serves(0) && ownership.owned().fenced.isEmpty)
        #expect(
            ownership.seen(regions(12, by: "b", token: 19), client: "p") == .fenced(partition: 0, token: 19),
            "a new higher token fences again")
    }

    @Test("--coordination: etcd endpoints, TLS, user and password")
    func endpoints() throws {
        let plain = try EtcdEndpoints(parsing: "etcd://10.0.0.1:2379,10.0.0.2:2379,etcd-3")
        #expect(plain.urls == ["http://10.0.0.1:2379", "http://10.0.0.2:2379", "http://etcd-3:2379"])
        #expect(plain.user == nil && plain.password == nil)
        let secure = try EtcdEndpoints(parsing: "etcds://coordinator:p%40ss@etcd-1:2379")
        #expect(secure.urls == ["https://etcd-1:2379"] && secure.user == "coordinator" && secure.password == "p@ss")
        #expect(!secure.description.contains("p@ss"))
        #expect(throws: EtcdError.self) { try EtcdEndpoints(parsing: "http://etcd-1:2379") }
        #expect(throws: EtcdError.self) { try EtcdEndpoints(parsing: "etcd://a:1,,b:2") }
    }

    @Test("a new owner continues above the previous owner's version, from the clock, diffed against that set")
    func continuesTheVersion() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let held = engine.venue.topology.regions.prefix(3).map(\.reference)
        var message = RegionsMessage(version: 5_000, budget: 20, regions: held, add: held, remove: [], position: nil, reason: "moved")
        message.coordinator = "previous"
        engine.adoptPublished(client: "p", message: message, now: TestVenue.millis(0))
        #expect(engine.version(of: "p") == 5_000)
        let report = try WireCoding.encode(ClientReport(events: [RegionEvent(type: .enter, region: "r12")]))
        try engine.feed(TestVenue.topics.clientReport(try Identifier("p")), report, at: 1)
        let published = try #require(engine.step(at: 1).regionsMessages.first)
        // Sets the previous owner published after 5,000 that had not arrived lie below the clock.
        #expect(published.1.version == UInt64(TestVenue.millis(1)))
        let kept = Set(held.map(\.id)).intersection(published.1.regions.map(\.id))
        #expect(published.1.add.allSatisfy { !kept.contains($0.id) })
        #expect(Set(published.1.remove).isSubset(of: Set(held.map(\.id))))
        // An older set (a QoS 1 redelivery) changes nothing.
        engine.adoptPublished(client: "p", message: message, now: TestVenue.millis(2))
        #expect(engine.version(of: "p") == UInt64(TestVenue.millis(1)))
    }

    @Test("a partition gained: its clients' next sets continue from the clock; other clients' continue + 1")
    func gainedContinuesFromTheClock() throws {
        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let report = try WireCoding.encode(ClientReport(events: [RegionEvent(type: .enter, region: "r12")]))
        for client in ["kept", "moved"] { try engine.feed(TestVenue.topics.clientReport(try Identifier(client)), report, at: 1) }
        let first = Dictionary(uniqueKeysWithValues: engine.step(at: 1).regionsMessages.map { ($0.0, $0.1.version) })
        engine.markHandedOver { $0 == "moved" }
        // Each phone says it holds nothing of its set: answered with a new version (a reconciliation).
        for client in ["kept", "moved"] {
            let version: UInt64 = try #require(first[client])
            let held = try WireCoding.encode(ClientReport(monitored: [], version: version))
            try engine.feed(TestVenue.topics.clientReport(try Identifier(client)), held, at: 30)
        }
        let next = Dictionary(uniqueKeysWithValues: engine.step(at: 30).regionsMessages.map { ($0.0, $0.1.version) })
        #expect(next["kept"] == first["kept"].map { $0 + 1 })
        #expect(next["moved"] == UInt64(TestVenue.millis(30)))
    }
}

extension PartitionTests {
    @Test("a phone another member answered within the last second is not answered here")
    func handoverHysteresis() throws {
        let ownership = try owner()
        let served = Date()
        #expect(ownership.serves(client: "p", in: 0, now: served))
        _ = ownership.seen(regions(3, by: "b", token: 2), client: "p", now: served)
        #expect(!ownership.serves(client: "p", in: 0, now: served.addingTimeInterval(0.5)))
        #expect(ownership.serves(client: "p", in: 0, now: served.addingTimeInterval(1.1)))
    }
}
