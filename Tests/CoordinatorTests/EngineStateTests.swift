import BeaconKit
import Testing
import WireProtocol

@testable import Coordinator

/// The engine's state in the types that own it: the dirty queue, the outbox, the version rule,
/// the client table and the records' compact encodings.
@Suite("Engine state")
struct EngineStateTests {
    @Test("the dirty queue holds a client once however often it is marked, in the order first marked, until a flush clears it")
    func dirtyQueueCoalesces() {
        var dirty = DirtyQueue()
        for client: Int32 in [4, 1, 4, 9, 1, 4] { dirty.mark(client) }
        #expect(dirty.count == 3)
        let taken = dirty.take()
        #expect(taken == [4, 1, 9] && dirty.count == 0)
        // Taken but not yet decided: still dirty, so marking it does not queue it twice.
        dirty.mark(4)
        #expect(dirty.count == 0 && dirty.contains(4))
        // 1 waits (back of the queue), 9 was decided, 4 was not looked at (ahead of every other).
        dirty.requeue(1)
        dirty.clear(9)
        dirty.requeueFirst(taken[0..<1])
        #expect(!dirty.contains(9))
        dirty.mark(9)
        #expect(dirty.take() == [4, 1, 9])
        for client: Int32 in [4, 1, 9] { dirty.clear(client) }
        dirty.mark(1)
        #expect(dirty.take() == [1], "cleared: the next mark queues it again")
    }

    @Test("the outbox hands everything decided over in one take, touched clients once each, and starts empty again")
    func outboxTakesOnce() {
        var outbox = Outbox()
        outbox.publish(.clearRegions(client: "a"))
        outbox.persist(3)
        outbox.removed("a")
        outbox.touch(5)
        #expect(outbox.take().touched.isEmpty, "nothing is noted while nobody watches")
        outbox.tracksTouched = true
        outbox.publish(.clearRegions(client: "b"))
        outbox.publish(.clearRegions(client: "c"))
        outbox.persist(7)
        outbox.touch(5)
        outbox.touch(contentsOf: [2, 5, 8])
        outbox.touch(2)
        let taken = outbox.take()
        #expect(taken.messages == [.clearRegions(client: "b"), .clearRegions(client: "c")])
        #expect(taken.persist == [7] && taken.removed.isEmpty)
        #expect(taken.touched == [5, 2, 8])
        let again = outbox.take()
        #expect(again.messages.isEmpty && again.persist.isEmpty && again.removed.isEmpty && again.touched.isEmpty)
    }

    @Test("a first version is the clock; each next one adds 1; never 0, even at a clock of 0")
    func versionStartsAtTheClock() {
        var version = RegionsVersion()
        #expect(version.isFirst)
        #expect(version.advance(now: 1_800_000_000_000) == 1_800_000_000_000)
        #expect(!version.isFirst)
        #expect(version.advance(now: 1_800_000_000_000) == 1_800_000_000_001)
        #expect(version.advance(now: 1_700_000_000_000) == 1_800_000_000_002, "a clock gone back never takes the version back")
        var restored = RegionsVersion(41)
        #expect(restored.advance(now: 1_800_000_000_000) == 42, "a restored client continues its own")
        var early = RegionsVersion()
        #expect(early.advance(now: 0) == 1)
    }

    @Test("after a handover or an adopted set, the next version jumps to the clock when that is above; once")
    func versionJumpsAfterAHandover() {
        var version = RegionsVersion(1_000)
        version.handOver()
        #expect(version.advance(now: 5_000) == 5_000, "a partition gained: the clock, above what another member may have published")
        #expect(version.advance(now: 5_000) == 5_001, "the jump is made once")
        let adopted = version.adopt(9_000)
        #expect(adopted)
        #expect(version.current == 9_000 && version.handedOver)
        #expect(version.advance(now: 6_000) == 9_001, "the clock below the adopted version: + 1")
        let same = version.adopt(9_001)
        let older = version.adopt(100)
        #expect(!same && !older, "a set not newer is not adopted")
        #expect(!version.handedOver && version.current == 9_001)
        let newer = version.adopt(20_000)
        #expect(newer)
        #expect(version.advance(now: 30_000) == 30_000, "the clock above the adopted version: the clock")
    }

    @Test("slot limits, timestamps, anchors, region evidence and measured power keep their raw values and read back what they hold")
    func encodingsRoundTrip() {
        #expect(MemoryLayout<SlotLimit>.size == 1 && MemoryLayout<Timestamp>.size == 8 && MemoryLayout<Anchor>.size == 4)
        #expect(MemoryLayout<RegionEvidence>.size == 4 && MemoryLayout<MeasuredPower>.size == 1)
        #expect(SlotLimit.unstated.slots == nil && SlotLimit(clamping: 12).slots == 12 && SlotLimit(clamping: 0).slots == 0)
        #expect(SlotLimit(clamping: 300) == .unstated, "a byte: 255 and above read as unstated, as ever")
        #expect(Timestamp.never.milliseconds == nil && Timestamp(rawValue: 5).milliseconds == 5)
        #expect(Timestamp.never < Timestamp(rawValue: -1_000) && max(Timestamp.never, Timestamp(rawValue: 3)) == Timestamp(rawValue: 3))
        for index: Int32 in [0, 1, 7, 99_999] {
            #expect(Anchor.gateway(index).gateway == index && Anchor.gateway(index).region == nil)
            #expect(Anchor.region(index).region == index && Anchor.region(index).gateway == nil)
            #expect(Anchor.region(index).rawValue == -(index + 1), "the encoding the records always used")
            #expect(RegionEvidence.enter(index).isEnter && RegionEvidence.enter(index).region == index)
            #expect(!RegionEvidence.exit(index).isEnter && RegionEvidence.exit(index).region == index)
            #expect(RegionEvidence.exit(index).rawValue == -(index + 1))
        }
        #expect(MeasuredPower(nil) == .unknown && MeasuredPower(nil).dBm == nil)
        #expect(MeasuredPower(-59).dBm == -59 && MeasuredPower(-300).dBm == nil, "clamped to a byte: -128 is unknown, as ever")
    }

    @Test("the client table keeps its lookups in step: ids, beacons, reused slots")
    func clientTableLookups() throws {
        var clients = ClientTable()
        let tag = try #require(BeaconIdentity(uuid: TestVenue.tagUUID, major: 7, minor: 1))
        let other = try #require(BeaconIdentity(uuid: TestVenue.tagUUID, major: 7, minor: 2))
        let a = clients.client(forBeacon: tag, now: 10)
        #expect(clients.client(forBeacon: tag, now: 11) == a && clients.index(of: tag.clientIdentifier) == a)
        #expect(clients[a]?.lastSeen == 10 && clients[a]?.beacon == tag)
        let phone = clients.client(forID: "phone", now: 12)
        #expect(clients.count == 2 && clients.slotCount == 2 && clients.indices == [a, phone])
        // The phone declares the tag's identity: sightings of it locate the phone, and its own earlier one no longer does.
        clients.link(other, to: phone)
        clients.link(tag, to: phone)
        #expect(clients.index(of: tag) == phone && clients.index(of: other) == nil)
        clients.remove(a)
        #expect(clients.index(of: tag) == phone, "removing the tag leaves the phone's link")
        #expect(clients.index(of: tag.clientIdentifier) == nil && clients[a] == nil && clients.count == 1)
        let reused = clients.client(forID: "next", now: 13)
        #expect(reused == a && clients.slotCount == 2, "a freed slot is reused")
        #expect(clients[id: "next"]?.id == "next" && Set(clients.ids) == ["phone", "next"])
    }
}
