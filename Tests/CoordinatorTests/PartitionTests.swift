import Coordinator
import Foundation
import Testing
import Topology
import WireProtocol

/// Rendezvous hashing, the membership view, the partition map and the fence, without a broker.
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

    @Test("a stale retained online (no will from a dead NATS node) is not live; a fresh heartbeat is, until the timeout")
    func liveness() {
        var view = MembershipView()
        let now = Date()
        view.note(
            CoordinatorMemberStatus(member: "dead", state: .online, venue: "museum", time: now.addingTimeInterval(-60)), heardAt: now,
            retained: true)
        view.note(CoordinatorMemberStatus(member: "alive", state: .online, venue: "museum", time: now), heardAt: now, retained: false)
        view.note(CoordinatorMemberStatus(member: "gone", state: .offline, venue: "museum", time: now), heardAt: now, retained: false)
        view.note(CoordinatorMemberStatus(member: "elsewhere", state: .online, venue: "mall", time: now), heardAt: now, retained: false)
        #expect(view.live(now: now.addingTimeInterval(1), timeout: 3.5, venue: "museum") == ["alive"])
        #expect(view.live(now: now.addingTimeInterval(4), timeout: 3.5, venue: "museum").isEmpty)
    }

    @Test("member ids are topic levels on every broker: no '.' or space")
    func memberIDs() throws {
        #expect(Topics.isValidMember("coord-1_a"))
        #expect(!Topics.isValidMember("coord.1"))
        #expect(!Topics.isValidMember("coord 1"))
        #expect(throws: PartitionSpecError.self) { try PartitionConfiguration(member: "a.b") }
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
        var configuration = try PartitionConfiguration(member: member)
        configuration.timeout = 3.5
        let t0 = Date()
        let ownership = PartitionOwnership(configuration: configuration, map: map, joined: t0.addingTimeInterval(-10))
        ownership.note(CoordinatorMemberStatus(member: other, state: .online, venue: "mall", time: t0), heardAt: t0)
        _ = ownership.refresh(now: t0)
        let served = t0.addingTimeInterval(configuration.grace + 0.1)
        #expect(ownership.serves(1, now: served) && !ownership.serves(0, now: served))
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

    /// Two members `a` and `b` of one single-partition venue, seen from the one that owns it.
    func owner(joined: Date) throws -> (PartitionOwnership, other: String) {
        let museum = try Topology.load(directory: CoordinatorHarness.museum)
        let map = try PartitionMap(topology: museum)
        let ownerID = Rendezvous.owner(of: "museum", among: ["a", "b"])!
        let other = ownerID == "a" ? "b" : "a"
        var configuration = try PartitionConfiguration(member: ownerID)
        configuration.grace = 1.5
        configuration.timeout = 3.5
        return (PartitionOwnership(configuration: configuration, map: map, joined: joined), other)
    }

    /// ``owner(joined:)`` joined long ago and deciding now, alone (the other was never heard).
    func decidedOwner() throws -> (PartitionOwnership, other: String, now: Date) {
        let (ownership, other) = try owner(joined: Date().addingTimeInterval(-10))
        let now = Date()
        _ = ownership.refresh(now: now)
        return (ownership, other, now)
    }

    func regions(_ version: UInt64, by member: String) -> RegionsMessage {
        var message = RegionsMessage(version: version, budget: 20, regions: [], add: [], remove: [], position: nil, reason: "moved")
        message.coordinator = member
        return message
    }

    @Test("the fence: another member's newer version for a client of a partition served silences it until membership changes")
    func fence() throws {
        let t0 = Date()
        let (ownership, other) = try owner(joined: t0)
        ownership.note(CoordinatorMemberStatus(member: other, state: .online, venue: "museum", time: t0), heardAt: t0)
        #expect(ownership.refresh(now: t0) == nil, "nothing is decided before the others' heartbeats could arrive")
        let decided = t0.addingTimeInterval(3.6)
        ownership.note(CoordinatorMemberStatus(member: other, state: .online, venue: "museum", time: decided), heardAt: decided)
        let change = try #require(ownership.refresh(now: decided))
        #expect(change.live.count == 2 && change.gained == [0])
        // In the grace: neither served nor fenced by the previous owner's last sets (adopted).
        #expect(!ownership.serves(0, now: decided.addingTimeInterval(1)))
        #expect(ownership.seen(regions(10, by: other), client: "p", ownVersion: 5, now: decided.addingTimeInterval(1)) == .adopt)
        let after = decided.addingTimeInterval(2)
        #expect(ownership.serves(0, now: after))
        // Its own echo, and an older redelivery, are no fence.
        #expect(ownership.seen(regions(11, by: ownership.member), client: "p", ownVersion: 11, now: after) == .own)
        #expect(ownership.seen(regions(9, by: other), client: "p", ownVersion: 11, now: after) == .adopt)
        // The same version again (a QoS 1 redelivery of one adopted) is no fence either.
        #expect(ownership.seen(regions(10, by: other), client: "p", ownVersion: 10, now: after) == .adopt)
        // A newer version from the other: fenced.
        #expect(ownership.seen(regions(12, by: other), client: "p", ownVersion: 11, now: after) == .fenced(partition: 0))
        #expect(!ownership.serves(0, now: after.addingTimeInterval(1)))
        #expect(ownership.owned(now: after.addingTimeInterval(1)).fenced == [0])
        // The other member goes silent: membership changes, the fence lifts, the partition is served again after the grace.
        let later = decided.addingTimeInterval(4)
        let next = try #require(ownership.refresh(now: later))
        #expect(next.live == [ownership.member] && next.owned == [0] && next.gained.isEmpty)
        #expect(ownership.serves(0, now: later))
    }

    @Test("the fence also ends by itself after its hold, if membership never changes")
    func fenceHold() throws {
        let (ownership, other, now) = try decidedOwner()
        // The very version this member published, from the other: both think they own the client.
        #expect(
            ownership.seen(regions(11, by: other), client: "p", ownVersion: 11, now: now.addingTimeInterval(2)) == .fenced(partition: 0))
        #expect(!ownership.serves(0, now: now.addingTimeInterval(3)))
        #expect(ownership.serves(0, now: now.addingTimeInterval(2 + ownership.configuration.fenceHold + 0.1)))
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
    @Test("a member that stops hearing its own heartbeats decides nothing: the others' silence may be its own")
    func deafMemberDecidesNothing() throws {
        let t0 = Date().addingTimeInterval(-10)
        let (ownership, other) = try owner(joined: t0)
        let now = Date()
        for member in [ownership.member, other] {
            ownership.note(CoordinatorMemberStatus(member: member, state: .online, venue: "museum", time: now), heardAt: now)
        }
        #expect(ownership.refresh(now: now)?.live.count == 2)
        // Both go quiet past the timeout, this member's own echo included: no change.
        let later = now.addingTimeInterval(ownership.configuration.timeout + 1)
        #expect(ownership.refresh(now: later) == nil)
        // It hears itself again, and the other still not: the other is gone.
        ownership.note(CoordinatorMemberStatus(member: ownership.member, state: .online, venue: "museum", time: later), heardAt: later)
        #expect(ownership.refresh(now: later)?.live == [ownership.member])
    }

    @Test(
        "a member cut off from the broker serves nothing, and on reconnecting alone takes nothing back until the others are heard or gone")
    func reconnect() throws {
        let t0 = Date().addingTimeInterval(-10)
        let (ownership, other) = try owner(joined: t0)
        let now = Date()
        ownership.note(CoordinatorMemberStatus(member: other, state: .online, venue: "museum", time: now), heardAt: now)
        #expect(ownership.refresh(now: now)?.owned == [0])
        #expect(ownership.serves(0, now: now.addingTimeInterval(2)))
        ownership.disconnected()
        #expect(!ownership.serves(0, now: now.addingTimeInterval(2)))
        #expect(ownership.refresh(now: now.addingTimeInterval(3)) == nil)
        ownership.connected(now: now.addingTimeInterval(3))
        #expect(ownership.refresh(now: now.addingTimeInterval(4)) == nil, "the others' heartbeats have a timeout to arrive")
        // The other is not heard again: after the timeout this member is alone with a silent member,
        // which may well be serving what this one lost meanwhile; it takes nothing back.
        let alone = now.addingTimeInterval(3 + ownership.configuration.timeout)
        #expect(ownership.refresh(now: alone).map { $0.live == [ownership.member] && $0.owned.isEmpty } == true)
        // Its will arrives (it really is gone): now this member takes the venue, after the grace.
        ownership.note(CoordinatorMemberStatus(member: other, state: .offline, venue: "museum", time: alone), heardAt: alone)
        let rejoined = alone.addingTimeInterval(0.5)
        #expect(ownership.refresh(now: rejoined)?.gained == [0])
        #expect(!ownership.serves(0, now: rejoined))
        #expect(ownership.serves(0, now: rejoined.addingTimeInterval(ownership.configuration.grace)))
    }

    @Test("on reconnecting, a member decides as soon as it has heard every member it knew live again")
    func fastRejoin() throws {
        let t0 = Date().addingTimeInterval(-10)
        let (ownership, other) = try owner(joined: t0)
        let now = Date()
        ownership.note(CoordinatorMemberStatus(member: other, state: .online, venue: "museum", time: now), heardAt: now)
        #expect(ownership.refresh(now: now)?.live.count == 2)
        ownership.disconnected()
        ownership.connected(now: now.addingTimeInterval(1))
        #expect(ownership.refresh(now: now.addingTimeInterval(1.5)) == nil, "not heard the other since")
        let heard = now.addingTimeInterval(2)
        ownership.note(CoordinatorMemberStatus(member: other, state: .online, venue: "museum", time: heard), heardAt: heard)
        #expect(ownership.refresh(now: heard) == nil, "not heard its own heartbeat since: its subscriptions may not be back")
        ownership.note(CoordinatorMemberStatus(member: ownership.member, state: .online, venue: "museum", time: heard), heardAt: heard)
        let change = try #require(ownership.refresh(now: heard))
        #expect(change.live.count == 2 && change.gained == [0])
    }

    @Test("lost twice before rejoining, a member still waits for the members it knew: it does not decide alone on reconnecting")
    func lostTwiceBeforeRejoining() throws {
        let t0 = Date().addingTimeInterval(-10)
        let (ownership, other) = try owner(joined: t0)
        let now = Date()
        let heardAt = { (member: String, at: Date) in
            ownership.note(CoordinatorMemberStatus(member: member, state: .online, venue: "museum", time: at), heardAt: at)
        }
        heardAt(other, now)
        #expect(ownership.refresh(now: now)?.live.count == 2)
        ownership.disconnected()
        ownership.connected(now: now.addingTimeInterval(1))
        ownership.disconnected()  // again, before anyone was heard
        let back = now.addingTimeInterval(2)
        ownership.connected(now: back)
        heardAt(ownership.member, back.addingTimeInterval(0.5))
        #expect(ownership.refresh(now: back.addingTimeInterval(0.5)) == nil, "the other, known live before, not heard again yet")
        heardAt(other, back.addingTimeInterval(0.7))
        #expect(ownership.refresh(now: back.addingTimeInterval(0.7))?.live.count == 2)
    }

    @Test("a member that lost its connection before it ever decided waits out the timeout, as when joining")
    func lostBeforeDeciding() throws {
        let now = Date()
        let (ownership, _) = try owner(joined: now)
        ownership.disconnected()
        ownership.connected(now: now.addingTimeInterval(0.5))
        ownership.note(
            CoordinatorMemberStatus(member: ownership.member, state: .online, venue: "museum", time: now),
            heardAt: now.addingTimeInterval(1))
        #expect(ownership.refresh(now: now.addingTimeInterval(1)) == nil, "nobody known to wait for is no reason to decide at once")
        let timedOut = now.addingTimeInterval(0.6 + ownership.configuration.timeout)
        ownership.note(
            CoordinatorMemberStatus(member: ownership.member, state: .online, venue: "museum", time: timedOut), heardAt: timedOut)
        #expect(ownership.refresh(now: timedOut)?.owned == [0])
    }

    @Test(
        "in the grace of a partition just gained, a set another member decided after the gain backs this member off; one decided before does not"
    )
    func graceBackOff() throws {
        let (ownership, other, now) = try decidedOwner()
        var before = regions(5, by: other)
        before.time = now.addingTimeInterval(-0.5)
        #expect(ownership.seen(before, client: "p", ownVersion: 0, now: now.addingTimeInterval(0.5)) == .adopt)
        var after = regions(6, by: other)
        after.time = now.addingTimeInterval(1)
        #expect(ownership.seen(after, client: "p", ownVersion: 5, now: now.addingTimeInterval(1)) == .fenced(partition: 0))
        #expect(!ownership.serves(0, now: now.addingTimeInterval(ownership.configuration.grace + 1)))
    }
}

extension PartitionTests {
    @Test("alone with the others gone silent (not offline), a member keeps what it had and takes nothing of theirs")
    func aloneKeepsItsOwn() throws {
        let museum = try Topology.load(directory: CoordinatorHarness.museum)
        let map = try PartitionMap(topology: museum)
        let now = Date()
        // The member that does not own the museum while both are live.
        let owner = Rendezvous.owner(of: "museum", among: ["a", "b"])!
        let other = owner == "a" ? "b" : "a"
        let ownership = PartitionOwnership(
            configuration: try PartitionConfiguration(member: other), map: map, joined: now.addingTimeInterval(-10))
        ownership.note(CoordinatorMemberStatus(member: owner, state: .online, venue: "museum", time: now), heardAt: now)
        #expect(ownership.refresh(now: now)?.owned == [])
        // Silent past the timeout: not taken.
        let silent = now.addingTimeInterval(ownership.configuration.timeout + 1)
        #expect(ownership.refresh(now: silent)?.owned == [])
        // Offline (its will): taken.
        ownership.note(CoordinatorMemberStatus(member: owner, state: .offline, venue: "museum", time: silent), heardAt: silent)
        let gone = silent.addingTimeInterval(1)
        _ = ownership.refresh(now: gone)
        #expect(ownership.owned(now: gone).owned == [0])
    }

    @Test("a phone another member answered within the last second is not answered here")
    func handoverHysteresis() throws {
        let (ownership, other, now) = try decidedOwner()
        let served = now.addingTimeInterval(2)
        #expect(ownership.serves(client: "p", in: 0, now: served))
        _ = ownership.seen(regions(3, by: other), client: "p", ownVersion: 0, now: served)
        #expect(!ownership.serves(client: "p", in: 0, now: served.addingTimeInterval(0.5)))
        #expect(ownership.serves(client: "p", in: 0, now: served.addingTimeInterval(1.1)))
    }
}
