import BeaconKit
import Coordinator
import Foundation
import Testing
import Topology
import WireProtocol

@Suite("Coordinator engine")
struct CoordinatorEngineTests {
    let topics = TestVenue.topics
    func engine(_ configuration: CoordinatorEngine.Configuration = .init(budget: 5), restored: [StoredClient] = []) -> CoordinatorEngine {
        CoordinatorEngine(venue: try! TestVenue.make(), configuration: configuration, restored: restored)
    }
    func gw(_ id: String) -> String { topics.sightings(try! Identifier(id)) }
    /// An engine whose configuration is the default changed by `change`, with tag 9 heard next to
    /// g0 (x = 0) at 0 s (not yet flushed).
    func engineHearingTag9(_ change: (inout CoordinatorEngine.Configuration) -> Void) throws -> CoordinatorEngine {
        var configuration = CoordinatorEngine.Configuration(budget: 5)
        change(&configuration)
        let engine = engine(configuration)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: [(9, 0.5)]), at: 0)
        return engine
    }
    func report(_ id: String) -> String { topics.clientReport(try! Identifier(id)) }

    @Test("a tag heard by gateways becomes a client named by its identity, located but not planned; region beacons do not")
    func tagBecomesClient() throws {
        let engine = engine()
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: [(1, 2)], regionBeacons: [0, 1]), at: 0)
        let out = engine.step(at: 1)
        #expect(engine.clientCount == 1)
        #expect(engine.counters.regionBeaconSightings == 2)
        let tag = try #require(engine.snapshot(of: TestVenue.tagID(1)))
        #expect(tag.kind == "tag" && tag.position.map { $0.x < 5 } == true)
        #expect(out.regionsMessages.isEmpty, "a tag monitors nothing: no set is published for it")
        #expect(out.events.contains { $0.type == .moved && $0.client == TestVenue.tagID(1) })
    }

    @Test("a phone's first set: versioned by the clock, reason initial, the pinned region first, the budget filled")
    func phoneFirstSet() throws {
        let engine = engine()
        try engine.declarePhone("phone-1", advertising: 1, at: 0)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: [(1, 2)]), at: 0)
        let messages = engine.step(at: 1).regionsMessages
        #expect(messages.map(\.0) == ["phone-1"])
        let first = try #require(messages.first?.1)
        #expect(first.version == TestVenue.firstVersion(at: 1) && first.reason == "initial" && first.remove.isEmpty)
        #expect(first.regions.first?.id == "venue", "pinned first")
        #expect(first.regions.count == 5 && first.add == first.regions)
    }

    @Test("walking along the corridor: versions go up by one, adds and removes are the exact diff")
    func walkVersions() throws {
        let engine = engine()
        var versions: [UInt64] = []
        var monitored: Set<String> = []
        // A phone advertising tag 9's identity (a tag itself is not planned).
        try engine.declarePhone("phone-9", advertising: 9, at: 0)
        for step in 0..<120 {
            let x = Double(step) * 1.2  // the phone walks 1.2 m per second; the gateways within 25 m hear it
            for g in 0...7 where abs(x - Double(g) * 20) < 25 {
                let batch = TestVenue.batch(seq: UInt64(step + 1), at: Double(step), tags: [(9, abs(x - Double(g) * 20))])
                try engine.feed(gw("g\(g)"), batch, at: Double(step))
            }
            for (client, message) in engine.step(at: Double(step)).regionsMessages {
                #expect(client == "phone-9")
                versions.append(message.version)
                let removed = Set(message.remove)
                #expect(removed.isSubset(of: monitored), "removes only what was there")
                #expect(Set(message.add.map(\.id)).isDisjoint(with: monitored.subtracting(removed)), "never re-adds an unchanged region")
                monitored.subtract(removed)
                monitored.formUnion(message.add.map(\.id))
                #expect(monitored == Set(message.regions.map(\.id)))
            }
        }
        #expect(versions.count > 3, "the set rotated as the phone moved")
        #expect(versions.first == TestVenue.firstVersion(at: 0), "a record without history starts at the clock")
        let start = try #require(versions.first)
        #expect(versions == Array(start..<start + UInt64(versions.count)), "then +1 per change")
    }

    @Test("a tag is estimated at most once per interval: faster batches wait for the next flush and none of their evidence is lost")
    func tagEstimateInterval() throws {
        for interval in [Int64(1_000), 0] {
            // Tag 9 next to g0: estimated at once (located, not planned: no regions message).
            let engine = try engineHearingTag9 { $0.tagEstimateInterval = interval }
            var outputs = engine.step(at: 0)
            let first = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
            #expect(first.x < 5)
            #expect(engine.counters.estimates == 1)
            // 200 ms later g1 (x = 20) hears it close by: the estimate moves towards g1 (as far as a
            // walker can in 200 ms: the filter's prior is the last estimate).
            try engine.feed(gw("g1"), TestVenue.batch(seq: 1, at: 0.2, tags: [(9, 0.5)]), at: 0.2)
            outputs += engine.step(at: 0.2)
            let afterEarly = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
            if interval > 0 {
                #expect(afterEarly == first, "estimated 200 ms ago: waits")
                #expect(engine.counters.estimates == 1, "a tag that waits is not estimated")
                // The interval has passed: the waiting evidence is used without a new batch.
                outputs += engine.step(at: 1.0)
                let moved = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
                #expect(moved.x > first.x + 0.1, "g1's sighting moved it (x \(moved.x), first \(first.x))")
                #expect(engine.counters.estimates == 2)
            } else {
                #expect(afterEarly.x > first.x + 0.1, "no interval: estimated at once (x \(afterEarly.x), first \(first.x))")
                #expect(engine.counters.estimates == 2)
            }
            #expect(outputs.regionsMessages.isEmpty, "a tag is never sent a set")
        }
    }

    @Test("a flush with a limit decides that many tags and stops; the next ones go on from there until every due tag is decided once")
    func flushChunks() throws {
        let engine = engine()
        // Ten tags estimated at 0 s; at 0.2 s new evidence for them (they wait: backlogged, 1 s
        // interval) and five tags never seen before (due).
        let known = (1...10).map { (minor: UInt16($0), distance: 1.0) }
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: known), at: 0)
        _ = engine.step(at: 0)
        #expect(engine.counters.estimates == 10)
        let fresh = (11...15).map { (minor: UInt16($0), distance: 2.0) }
        try engine.feed(gw("g0"), TestVenue.batch(seq: 2, at: 0.2, tags: known + fresh), at: 0.2)
        var decided: [Int] = []
        var pending = true
        var flushes = 0
        while pending && flushes < 10 {
            let before = engine.counters.estimates
            pending = engine.flush(now: TestVenue.millis(0.2), backlogged: true, limit: 2)
            decided.append(Int(engine.counters.estimates - before))
            flushes += 1
        }
        #expect(decided == [2, 2, 1], "two per flush, then the last one; the waiting tags are not estimated")
        // The ones decided are the five new tags: each first estimate is a `moved` event.
        let moved = engine.take().outputs.events.filter { $0.type == .moved }.map(\.client)
        #expect(Set(moved) == Set((11...15).map { TestVenue.tagID(UInt16($0)) }) && moved.count == 5)
        // Still dirty: once their interval has passed the ten waiting tags are decided, two per flush.
        #expect(engine.flush(now: TestVenue.millis(1.1), backlogged: true, limit: 2))
        #expect(engine.counters.estimates == 17)
        engine.flush(now: TestVenue.millis(1.1), backlogged: true)
        #expect(engine.counters.estimates == 25, "each of the ten once")
    }

    @Test(
        "a tag's next window of evidence is estimated at once (a simulation faster than real time keeps pace), unless sightings are backlogged"
    )
    func tagEstimateFollowsEvidenceWindows() throws {
        for backlogged in [false, true] {
            let engine = engine()
            try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: [(9, 0.5)]), at: 0)
            _ = engine.step(at: 0)
            let first = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
            #expect(engine.counters.estimates == 1)
            // 300 ms later by the clock, but 40 s later by the evidence (longer than the estimator
            // remembers a position): g3 (x = 60) hears it.
            try engine.feed(gw("g3"), TestVenue.batch(seq: 1, at: 40, tags: [(9, 0.5)]), at: 0.3)
            engine.flush(now: TestVenue.millis(0.3), backlogged: backlogged)
            let now = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
            if backlogged {
                #expect(now == first && engine.counters.estimates == 1, "backlogged: waits for the clock")
            } else {
                #expect(now.x > first.x + 10 && engine.counters.estimates == 2, "x \(now.x)")
            }
        }
    }

    @Test(
        "however fast its evidence advances, a tag is estimated at most once per spacing of the clock; what waits is used by the next estimate"
    )
    func tagEstimateSpacing() throws {
        for spacing in [Int64(150), 0] {
            let engine = try engineHearingTag9 { $0.tagEstimateSpacing = spacing }
            _ = engine.step(at: 0)
            let first = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
            // A window of evidence 40 ms apart by the clock, not backlogged (a replay the
            // coordinator keeps up with): g3 (x = 60) hears it, one window on each time.
            for window in 1...3 {
                let clock = 0.04 * Double(window)
                try engine.feed(gw("g3"), TestVenue.batch(seq: UInt64(window), at: 40 + Double(window), tags: [(9, 0.5)]), at: clock)
                engine.flush(now: TestVenue.millis(clock), limit: CoordinatorCore.flushChunk)
            }
            let early = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
            if spacing > 0 {
                #expect(engine.counters.estimates == 1 && early == first, "estimated 40–120 ms ago: every window waits")
                // 150 ms after the first estimate the waiting windows are used, in one estimate.
                _ = engine.step(at: 0.15)
                let later = try #require(engine.snapshot(of: TestVenue.tagID(9))?.position)
                #expect(engine.counters.estimates == 2)
                #expect(later.x > first.x + 10, "g3's sightings moved it (x \(later.x), first \(first.x))")
            } else {
                #expect(engine.counters.estimates == 4 && early.x > first.x + 10, "no spacing: each window estimated at once")
            }
        }
    }

    @Test(
        "a tag heard only by gateways is followed as it walks with the radio filter: the region its estimate put it in does not hold it there"
    )
    func tagFollowedByTheRadioFilter() throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        // Sightings without tx power, read with the estimator's default model (-59 dBm at 1 m).
        let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 20, estimator: .init()))
        let gateways = topology.gateways
        // A tag the museum's clients.csv admits (the simulated tags' UUID).
        let museumTagUUID = "5A1D0000-BEAC-4F1E-9E70-000000000001"
        // The tag walks the museum's corridor (x = 10) from corridor-5 (y = 46) south at 1.2 m/s;
        // every gateway hears it each second at the log-distance model's RSSI (no noise).
        var trueY = 46.0
        var events: [ClientEvent] = []
        for second in 0..<20 {
            trueY = 46 - 1.2 * Double(second)
            for gateway in gateways {
                let dx = gateway.position.x - 10
                let dy = gateway.position.y - trueY
                let dz = (gateway.height ?? 2.5) - 1.2
                let rssi = -59 - 22 * log10((dx * dx + dy * dy + dz * dz).squareRoot())
                let start = Date(timeIntervalSince1970: 1_795_424_400 + Double(second))
                let batch = SightingsBatch(
                    seq: UInt64(second + 1), start: start, end: start.addingTimeInterval(1),
                    sightings: [
                        Sighting(
                            format: "ibeacon", uuid: museumTagUUID, major: 7, minor: 3, address: "AA:BB:CC:DD:EE:03",
                            rssi: (rssi * 10).rounded() / 10, rssiMax: Int(rssi.rounded()), count: 5, txPower: -59, distance: nil)
                    ])
                try engine.feed(gw(gateway.id), batch, at: Double(second))
            }
            events += engine.step(at: Double(second) + 0.9).events
        }
        let position = try #require(engine.snapshot(of: "\(museumTagUUID).7.3")?.position)
        #expect(abs(position.y - trueY) < 3, "estimated y \(position.y), true y \(trueY)")
        #expect(events.contains { $0.type == .exit && $0.region == "corridor-5" }, "the tag left corridor-5")
        #expect(events.contains { $0.type == .enter && $0.region == "corridor-3" }, "and entered corridor-3 on its way (y = 30)")
    }

    @Test("absence is evidence: missing from several windows of healthy gateways means exit; an offline gateway makes nobody leave")
    func absence() throws {
        let engine = engine(.init(budget: 5, absenceWindows: 3))
        // Tag 1 sits inside r0 (x≈0) heard by g0.
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: [(1, 0.5), (2, 0.5)]), at: 0)
        var out = engine.step(at: 0)
        #expect(out.events.contains { $0.type == .enter && $0.region == "r0" && $0.client == TestVenue.tagID(1) })
        // g0 goes offline: no batches, nobody leaves, whatever the time.
        try engine.feed(topics.gatewayStatus(try Identifier("g0")), GatewayStatus(state: .offline), at: 1)
        out = engine.step(at: 30)
        #expect(!out.events.contains { $0.type == .exit })
        // Back online, it hears both again, then only tag 2 for three windows: tag 1 has left.
        try engine.feed(gw("g0"), TestVenue.batch(seq: 2, at: 31, tags: [(1, 0.5), (2, 0.5)]), at: 31)
        _ = engine.step(at: 31)
        for window in 0..<2 {
            try engine.feed(
                gw("g0"), TestVenue.batch(seq: UInt64(3 + window), at: 32 + Double(window), tags: [(2, 0.5)]), at: 32 + Double(window))
            #expect(!engine.step(at: 32 + Double(window)).events.contains { $0.type == .exit }, "not yet: \(window + 1) windows")
        }
        try engine.feed(gw("g0"), TestVenue.batch(seq: 5, at: 34, tags: [(2, 0.5)]), at: 34)
        out = engine.step(at: 34)
        let exits = out.events.filter { $0.type == .exit }
        #expect(exits.count == 1)
        #expect(exits.first?.client == TestVenue.tagID(1) && exits.first?.region == "r0" && exits.first?.evidence == "absence")
        #expect(engine.snapshot(of: TestVenue.tagID(1))?.present == false)
        #expect(engine.snapshot(of: TestVenue.tagID(2))?.present == true)
    }

    @Test("a phone's advertising identity joins the gateways' sightings to the phone")
    func advertisingJoins() throws {
        let engine = engine()
        try engine.feed(gw("g1"), TestVenue.batch(seq: 1, at: 0, tags: [(4, 1)]), at: 0)
        _ = engine.step(at: 0)
        #expect(engine.snapshot(of: TestVenue.tagID(4)) != nil)
        let declare = ClientReport(advertising: AdvertisedIdentity(uuid: TestVenue.tagUUID, major: 7, minor: 4))
        let tagPosition = try #require(engine.snapshot(of: TestVenue.tagID(4))?.position)
        try engine.feed(report("phone-1"), declare, at: 1)
        let out = engine.step(at: 1)
        // The tag's own record is merged away; it was never sent a set, so there is none to clear.
        #expect(engine.snapshot(of: TestVenue.tagID(4)) == nil)
        #expect(!out.contains(.clearRegions(client: TestVenue.tagID(4))))
        // Planned at once, where the tag was, not after the gateways' next window.
        #expect(out.regionsMessages.first { $0.0 == "phone-1" }?.1.version == TestVenue.firstVersion(at: 1))
        let adopted = try #require(engine.snapshot(of: "phone-1")?.position)
        #expect(adopted.x == tagPosition.x && adopted.y == tagPosition.y)
        // Later (longer than the estimator remembers a position) g2 (x = 40) hears it.
        try engine.feed(gw("g2"), TestVenue.batch(seq: 1, at: 40, tags: [(4, 1)]), at: 40)
        _ = engine.step(at: 40)
        #expect(engine.clientCount == 1)
        let phone = try #require(engine.snapshot(of: "phone-1"))
        #expect(phone.kind == "phone" && abs((phone.position?.x ?? 0) - 40) < 15)
    }

    @Test("a message read once (routed, size-checked, decoded) is applied, or refused and counted, by the one entry point")
    func readMessagesAreAppliedOrCounted() throws {
        let valid = TestVenue.batch(seq: 1, at: 0, tags: [(1, 0.5), (2, 3)], regionBeacons: [0])
        var badField = String(decoding: TestVenue.batch(seq: 2, at: 1, tags: [(1, 0.5)]), as: UTF8.self)
        badField = badField.replacingOccurrences(of: "\"rssi\":\(TestVenue.rssi(distance: 0.5))", with: "\"rssi\":\"loud\"")
        let messages: [(String, [UInt8])] = [
            (gw("g0"), valid),
            (gw("g0"), valid),  // duplicate
            (gw("g0"), Array(badField.utf8)),
            (gw("g1"), TestVenue.batch(seq: 7, at: 1, tags: [(3, 1)])),
            (gw("g1"), [UInt8](repeating: 0x20, count: WireCoding.maximumPayloadBytes + 1)),
            ("beaconfleet/v1/gateways/bad topic/sightings", valid),
            (report("p"), try WireCoding.encode(ClientReport(events: [RegionEvent(type: .enter, region: "r3")]))),
            (report("p"), Array("{\"v\":1,\"budget\":99}".utf8)),
        ]
        let engine = engine()
        let decoder = InboundDecoder(topics: topics)
        var refused: [String] = []
        for (topic, payload) in messages {
            do throws(WireError) {
                try engine.apply(decoder.decode(topic: topic, payload: payload), now: TestVenue.millis(1))
            } catch {
                refused.append(topic)
            }
        }
        #expect(refused == [gw("g0"), gw("g1"), "beaconfleet/v1/gateways/bad topic/sightings", report("p")])
        #expect(engine.counters.invalidPayloads == 2 && engine.counters.invalidTopics == 1 && engine.counters.oversizedPayloads == 1)
        #expect(engine.counters.duplicateBatches == 1 && engine.counters.sightings == 7, "a duplicate is counted as received, then skipped")
        _ = engine.step(at: 1)
        #expect(engine.clientCount == 4)
    }

    @Test("reconciliation: a monitored list missing a planned region is re-planned and republished; a stale one is ignored")
    func reconciliation() throws {
        let engine = engine()
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r3")]), at: 0)
        let first = try #require(engine.step(at: 0).regionsMessages.first?.1)
        // (r3, reported inside with the estimate on its beacon, is arrived at: the frontier planner
        // may spend a budget of 5 on regions still to come.)
        #expect(first.version == TestVenue.firstVersion(at: 0) && first.regions.count >= 2)
        var have = first.regions.map(\.id)
        have.removeLast()
        // Stale: the phone says it applied an earlier version.
        try engine.feed(report("p"), ClientReport(monitored: have, version: first.version - 1), at: 1)
        #expect(engine.step(at: 1).regionsMessages.isEmpty)
        // Current: iOS dropped a region.
        try engine.feed(report("p"), ClientReport(monitored: have, version: first.version), at: 2)
        let fix = try #require(engine.step(at: 2).regionsMessages.first?.1)
        #expect(fix.version == first.version + 1 && fix.reason == "reconcile")
        // The diff goes from what the phone holds to the new set. (Whether the free slot is filled
        // again is the planner's choice: the frontier planner may keep the held set as it is.)
        #expect(Set(have).subtracting(fix.remove).union(fix.add.map(\.id)) == Set(fix.regions.map(\.id)))
        #expect(engine.counters.reconciliations == 1)
        // Agreeing report: nothing more.
        try engine.feed(report("p"), ClientReport(monitored: fix.regions.map(\.id), version: fix.version), at: 3)
        #expect(engine.step(at: 3).regionsMessages.isEmpty)
    }

    @Test("bad topics and payloads are counted and change nothing")
    func rejects() throws {
        let engine = engine()
        let cases: [(String, [UInt8])] = [
            ("beaconfleet/v1/gateways/bad id/sightings", TestVenue.batch(seq: 1, at: 0, tags: [(1, 1)])),
            ("other/v1/gateways/g0/sightings", TestVenue.batch(seq: 1, at: 0, tags: [(1, 1)])),
            (gw("g0"), Array("{".utf8)),
            (gw("g0"), Array(#"{"v":1}"#.utf8)),
            (report("p"), Array(#"{"v":1,"ranged":[{"uuid":"nope","major":1,"minor":1,"rssi":-50}]}"#.utf8)),
            (report("p"), Array(#"{"v":1,"budget":99}"#.utf8)),
            (report("p"), [UInt8](repeating: 0x20, count: WireCoding.maximumPayloadBytes + 1)),
        ]
        for (topic, payload) in cases {
            #expect(throws: WireError.self) { try engine.feed(topic, payload, at: 0) }
        }
        #expect(engine.step(at: 0).isEmpty)
        #expect(engine.clientCount == 0)
        #expect(engine.counters.invalidTopics == 2 && engine.counters.invalidPayloads == 4 && engine.counters.oversizedPayloads == 1)
    }

    @Test("duplicate and late batches are skipped, gaps counted")
    func sequence() throws {
        let engine = engine()
        try engine.feed(gw("g0"), TestVenue.batch(seq: 5, at: 0, tags: [(1, 1)]), at: 0)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 5, at: 0, tags: [(1, 1)]), at: 0)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 9, at: 1, tags: [(1, 1)]), at: 1)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 8, at: 1, tags: [(1, 1)]), at: 1)
        #expect(engine.counters.duplicateBatches == 2 && engine.counters.missedBatches == 3)
    }

    @Test("a new epoch starts the duplicate check over: a gateway whose spool was wiped is heard again from seq 1")
    func newEpochResets() throws {
        let engine = engine()
        for seq in 1...5 {
            try engine.feed(gw("g0"), TestVenue.batch(seq: UInt64(seq), epoch: 11, at: Double(seq), tags: [(1, 1)]), at: Double(seq))
        }
        try engine.feed(gw("g0"), TestVenue.batch(seq: 5, epoch: 11, at: 6, tags: [(1, 1)]), at: 6)
        #expect(engine.counters.duplicateBatches == 1, "a re-delivery within the epoch is still a duplicate")
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, epoch: 22, at: 7, tags: [(1, 1)]), at: 7)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 2, epoch: 22, at: 8, tags: [(1, 1)]), at: 8)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 2, epoch: 22, at: 8, tags: [(1, 1)]), at: 8)
        #expect(engine.counters.duplicateBatches == 2, "only the re-delivery of the new epoch's seq 2")
        #expect(engine.counters.sequenceResets == 1 && engine.counters.missedBatches == 0)
        // Without epochs (the same test on a legacy gateway), seq 1 after 5 is a duplicate.
        try engine.feed(gw("g1"), TestVenue.batch(seq: 5, at: 1, tags: [(1, 1)]), at: 1)
        try engine.feed(gw("g1"), TestVenue.batch(seq: 1, at: 2, tags: [(1, 1)]), at: 2)
        #expect(engine.counters.duplicateBatches == 3)
    }

    @Test("online after offline resets a gateway without epochs; a gateway with epochs keeps its check across the restart")
    func onlineAfterOffline() throws {
        let engine = engine()
        func status(_ gateway: String, _ state: GatewayStatus.State) throws {
            try engine.feed(
                topics.gatewayStatus(try Identifier(gateway)), GatewayStatus(state: state, version: "test", adapter: "replay:x"), at: 0)
        }
        for g in ["g0", "g1"] {
            try engine.feed(gw(g), TestVenue.batch(seq: 9, epoch: g == "g1" ? 5 : nil, at: 1, tags: [(1, 1)]), at: 1)
        }
        try status("g0", .online)  // online without an offline before it: nothing to reset
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 2, tags: [(1, 1)]), at: 2)
        #expect(engine.counters.duplicateBatches == 1 && engine.counters.sequenceResets == 0)
        for g in ["g0", "g1"] {
            try status(g, .offline)
            try status(g, .online)
        }
        #expect(engine.counters.sequenceResets == 1, "only the gateway without epochs")
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 3, tags: [(1, 1)]), at: 3)
        try engine.feed(gw("g1"), TestVenue.batch(seq: 9, epoch: 5, at: 3, tags: [(1, 1)]), at: 3)
        #expect(engine.counters.duplicateBatches == 2, "g0's seq 1 is applied; g1's re-sent seq 9 is still a duplicate")
    }

    @Test("a gateway's next window finds its clients again, also after they expired and a phone took a freed slot")
    func recalledWindowFollowsTheIndex() throws {
        let engine = engine()
        try engine.feed(gw("g0"), TestVenue.batch(seq: 1, at: 0, tags: [(1, 1), (2, 2), (3, 3)]), at: 0)
        try engine.feed(gw("g0"), TestVenue.batch(seq: 2, at: 1, tags: [(1, 1), (3, 3), (4, 4)]), at: 1)
        #expect(engine.clientCount == 4, "tag 2 dropped out of the window and tag 4 came in: still one client each")
        // Every tag expires; a phone's report takes one of the freed slots, the others stay free.
        let later = Double(engine.configuration.idleTimeout) / 1000 + 10
        engine.expireIdle(now: TestVenue.millis(later))
        #expect(engine.clientCount == 0)
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r10")]), at: later)
        // The same identities again: each is a client of its own again, none is the phone.
        try engine.feed(gw("g0"), TestVenue.batch(seq: 3, at: later, tags: [(1, 1), (3, 3), (4, 4)]), at: later)
        #expect(engine.clientCount == 4)
        for tag: UInt16 in [1, 3, 4] { #expect(engine.snapshot(of: TestVenue.tagID(tag)) != nil, "tag \(tag)") }
    }

    /// A phone ranging r8…r12 (around r10) with 5 slots (the pinned region, 2 for the frontier, 2 in
    /// range), given its first set, then reporting that it monitors it while still ranging them,
    /// with the enters iOS answered for them or (`enters: false`) without: the second set.
    private func toldRotation(enters: Bool) throws -> (
        engine: CoordinatorEngine, ranged: [RangedBeacon], first: Set<String>, second: RegionsMessage
    ) {
        let engine = engine()
        let ranged = (8...12).map { minor in
            RangedBeacon(
                uuid: TestVenue.regionUUID, major: 1, minor: UInt16(minor), rssi: Int(TestVenue.rssi(distance: abs(Double(minor * 5) - 50)))
            )
        }
        try engine.feed(report("p"), ClientReport(ranged: ranged), at: 0)
        let first = try #require(engine.step(at: 0).regionsMessages.last?.1)
        let firstInRange = Self.inRange(first)
        #expect(firstInRange.count == 2, "\(first.regions.map(\.id))")
        let answers = enters ? firstInRange.sorted().map { RegionEvent(type: .enter, region: $0) } : []
        try engine.feed(
            report("p"), ClientReport(ranged: ranged, events: answers, monitored: first.regions.map(\.id), version: first.version), at: 1)
        return (engine, ranged, firstInRange, try #require(engine.step(at: 1).regionsMessages.last?.1))
    }

    /// The regions of `message` among r8…r12, those ``toldRotation(enters:)``'s phone ranges.
    private static func inRange(_ message: RegionsMessage) -> Set<String> {
        Set(message.regions.map(\.id)).intersection((8...12).map { "r\($0)" })
    }

    @Test(
        "regions iOS told the app about (enters, requestState answers) or monitored while ranged leave their slots to regions in range not told yet",
        arguments: [true, false])
    func toldRegionsRotate(enters: Bool) throws {
        // Without enters: iOS sends one per stay inside, and this stay began before the record of it.
        let (_, _, first, second) = try toldRotation(enters: enters)
        let secondInRange = Self.inRange(second)
        #expect(secondInRange.count == 2 && secondInRange.isDisjoint(with: first), "\(second.regions.map(\.id))")
    }

    @Test("a region told on one approach is not told on the next (the phone did not range it for a window between them)")
    func toldEndsWithTheApproach() throws {
        let (engine, ranged, first, second) = try toldRotation(enters: false)
        // The phone slept 40 s, ranging nothing: at the next wake the first two are on a new
        // approach, not told yet, and take the slots back from the second two (told now). (Ranged
        // first: a stale record swept only after a hearing was noted would keep the first's told.)
        let firstRangedFirst = ranged.filter { first.contains("r\($0.minor)") } + ranged.filter { !first.contains("r\($0.minor)") }
        try engine.feed(
            report("p"), ClientReport(ranged: firstRangedFirst, monitored: second.regions.map(\.id), version: second.version), at: 41)
        let third = try #require(engine.step(at: 41).regionsMessages.last?.1)
        #expect(Self.inRange(third) == first, "\(third.regions.map(\.id))")
    }

    @Test("restored clients continue their versions; idle ones expire and their regions are cleared")
    func restoreAndExpire() throws {
        let engine = engine()
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r10")]), at: 0)
        _ = engine.step(at: 0)
        try engine.feed(
            report("p"), ClientReport(events: [RegionEvent(type: .exit, region: "r10"), RegionEvent(type: .enter, region: "r20")]), at: 1)
        engine.flush(now: TestVenue.millis(1))
        let decided = engine.take()
        let before = try #require(decided.outputs.regionsMessages.last?.1)
        let changed = decided.changed
        #expect(changed.count == 1 && changed[0].version == before.version)
        let resumed = self.engine(restored: changed)
        #expect(resumed.snapshot(of: "p")?.version == before.version)
        #expect(resumed.snapshot(of: "p")?.regions == before.regions.map(\.id))
        try resumed.feed(
            report("p"), ClientReport(events: [RegionEvent(type: .exit, region: "r20"), RegionEvent(type: .enter, region: "r2")]), at: 2)
        let next = try #require(resumed.step(at: 2).regionsMessages.first?.1)
        #expect(next.version == before.version + 1)
        resumed.expireIdle(now: TestVenue.millis(2) + resumed.configuration.idleTimeout + 1)
        let expired = resumed.take()
        #expect(expired.outputs == [.clearRegions(client: "p")])
        #expect(resumed.clientCount == 0)
        #expect(expired.removed == ["p"])
    }

    @Test("the estimate's confidence reaches the planner: a region behind a wall within it is monitored before nearer ones by walking")
    func confidenceIsThePlannersUncertainty() throws {
        // Two corridors 3 m apart, joined only at x = 0: a0…a9 at y = 0 and b0…b9 at y = 3 (every
        // 5 m, radius 2, detected within 10 m). From a9, b9 is 45 + 3 + 45 m away on foot but its
        // edge is 1 m away in a straight line, within the confidence an enter event gives (the
        // phone is somewhere within a9's reach, not at its beacon). The nearest-N planner, whose
        // rule this is.
        var regions = "id,uuid,major,minor,x,y,level,radius,tags\nvenue,,,,,,,,pinned\n"
        var links = "from,to\na0,b0\n"
        for (row, name) in ["a", "b"].enumerated() {
            for i in 0..<10 {
                regions += "\(name)\(i),,\(row + 1),\(i),\(i * 5),\(row * 3),L0,2,\n"
                if i > 0 { links += "\(name)\(i - 1),\(name)\(i)\n" }
            }
        }
        let topology = try TestVenue.load([
            "venue.conf": "uuid = \(TestVenue.regionUUID)\n", "levels.csv": "id\nL0\n", "regions.csv": regions, "links.csv": links,
        ])
        let engine = CoordinatorEngine(venue: try CoordinatorVenue(topology: topology, budget: 6, planner: .nearest))
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "a9")]), at: 0)
        let message = try #require(engine.step(at: 0).regionsMessages.first?.1)
        let confidence = try #require(message.position?.confidence)
        let reach = try #require(topology.regionIndex(id: "a9").map { topology.reachRanges[$0] })
        #expect(confidence > 2 && confidence <= reach, "the reach disk's spread, not the region's radius: \(confidence)")
        // A b region (within the uncertainty, 60 m and more on foot) took the slot a5 (15 m on
        // foot) would have had in walking order.
        let ids = Set(message.regions.map(\.id))
        #expect(ids.isSuperset(of: ["venue", "a9", "a8"]), "\(message.regions.map(\.id))")
        #expect(ids.contains { $0.hasPrefix("b") } && !ids.contains("a5"), "\(message.regions.map(\.id))")
    }

    @Test("a topology change re-plans every client by region id")
    func topologyReload() throws {
        let engine = engine()
        try engine.feed(report("p"), ClientReport(events: [RegionEvent(type: .enter, region: "r5")]), at: 0)
        let first = try #require(engine.step(at: 0).regionsMessages.first?.1)
        let gone = try #require(first.regions.last?.id)
        engine.replaceVenue(try TestVenue.make(skipping: [gone]), now: TestVenue.millis(1))
        let next = try #require(engine.take().outputs.regionsMessages.first?.1)
        #expect(next.version == first.version + 1 && next.reason == "topology")
        #expect(next.remove == [gone] && !next.regions.contains { $0.id == gone })
    }
}
