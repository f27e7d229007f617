@testable import Coordinator
@testable import LiveMap
import Foundation
import Topology
import Testing
import WireProtocol

/// The live map's stream buffer, the client list's query and the HTTP token, without a server.
@Suite("Live map: stream buffer, client query, token")
struct MapStreamTests {
    func marker(_ id: String, x: Double) -> ClientMarker {
        ClientMarker(id: id, kind: "tag", position: Position(x: x, y: 1, level: "G", confidence: 2), present: true, lastSeen: 1, version: 0)
    }

    @Test("a subscriber gets the newest update per client, at most one per client per interval")
    func coalescesAndRateLimits() {
        let broadcaster = MapBroadcaster(configuration: .init(bufferLimit: 100, minimumInterval: .milliseconds(500)))
        let subscription = broadcaster.subscribe()
        let start = ContinuousClock.now
        broadcaster.publish(clients: [marker("a", x: 1), marker("b", x: 1)])
        broadcaster.publish(clients: [marker("a", x: 2)])
        let first = subscription.take(now: start)
        #expect(first.clients == [marker("a", x: 2), marker("b", x: 1)])
        // Within the interval: a's next update waits, coalescing to the newest.
        broadcaster.publish(clients: [marker("a", x: 3)])
        broadcaster.publish(clients: [marker("a", x: 4)])
        #expect(subscription.take(now: start + .milliseconds(100)).clients.isEmpty)
        #expect(subscription.take(now: start + .milliseconds(500)).clients == [marker("a", x: 4)])
        #expect(subscription.take(now: start + .seconds(2)).isEmpty)
        subscription.cancel()
        #expect(!broadcaster.hasSubscribers)
    }

    @Test("a full buffer drops the oldest waiting client and says how many were dropped; removals go out at once")
    func dropsOldest() {
        let broadcaster = MapBroadcaster(configuration: .init(bufferLimit: 3))
        let subscription = broadcaster.subscribe()
        broadcaster.publish(clients: (0..<5).map { marker("c\($0)", x: Double($0)) })
        broadcaster.publish(clients: [], removed: ["gone"], gateways: [GatewayMarker(id: "gw", online: false)])
        let batch = subscription.take()
        #expect(batch.clients.map(\.id) == ["c3", "c4"])
        #expect(batch.removed == ["gone"])
        #expect(batch.dropped == 3)
        #expect(batch.gateways == [GatewayMarker(id: "gw", online: false)])
        #expect(subscription.take().isEmpty)
    }

    @Test("nothing is buffered without a subscriber, and the engine notes changes only while tracking")
    func idleWithoutSubscribers() throws {
        let broadcaster = MapBroadcaster()
        broadcaster.publish(clients: [marker("a", x: 1)])
        let subscription = broadcaster.subscribe()
        #expect(subscription.take().isEmpty)

        let engine = CoordinatorEngine(venue: try TestVenue.make())
        let topic = TestVenue.topics.sightings(try Identifier("g0"))
        try engine.feed(topic, TestVenue.batch(seq: 1, at: 0, tags: [(minor: 1, distance: 2)]), at: 0)
        engine.flush(now: TestVenue.millis(0))
        #expect(engine.take().touched.isEmpty)
        engine.tracksTouched = true
        try engine.feed(topic, TestVenue.batch(seq: 2, at: 1, tags: [(minor: 1, distance: 6), (minor: 2, distance: 3)]), at: 1.1)
        engine.flush(now: TestVenue.millis(1.1))
        let touched = engine.markers(of: engine.take().touched)
        #expect(Set(touched.map(\.id)) == [TestVenue.tagID(1), TestVenue.tagID(2)])
        #expect(touched.allSatisfy { $0.kind == "tag" && $0.position != nil })
        #expect(engine.take().touched.isEmpty, "each change is handed over once")
        // The list: filter and page, in id order, with the total.
        let all = engine.clients(ClientQuery(kind: .tag, limit: 1))
        #expect(all.total == 2 && all.page.map(\.id) == [TestVenue.tagID(1)])
        #expect(engine.clients(ClientQuery(kind: .tag, limit: 1, offset: 1)).page.map(\.id) == [TestVenue.tagID(2)])
        #expect(engine.clients(ClientQuery(kind: .phone)).total == 0)
        #expect(engine.clients(ClientQuery(level: "L1")).total == 0)
        #expect(engine.clients(ClientQuery(level: "L0", present: true)).total == 2)
    }

    @Test("the stream's JSON is what the page parses")
    func markerJSON() throws {
        let encoder = WireCoding.makeEncoder()
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(marker("a\"b", x: 1.5))) as? [String: Any])
        #expect(object["id"] as? String == "a\"b")
        #expect(object["x"] as? Double == 1.5)
        #expect(object["level"] as? String == "G")
        let unplacedMarker = ClientMarker(id: "u", kind: "phone", position: nil, present: false, lastSeen: 5, version: 7)
        let unplaced = try #require(try JSONSerialization.jsonObject(with: encoder.encode(unplacedMarker)) as? [String: Any])
        #expect(unplaced["x"] is NSNull)
        #expect(unplaced["present"] as? Bool == false)
    }

    @Test("the client list's parameters: bad values and unknown names are errors naming the parameter")
    func clientQuery() throws {
        let query = try ClientQuery(parameters: [
            ("kind", "tag"), ("level", "G"), ("present", "true"), ("limit", "5"), ("offset", "10"), ("token", "x"),
        ])
        #expect(query == ClientQuery(kind: .tag, level: "G", present: true, limit: 5, offset: 10))
        for (name, value) in [
            ("kind", "robot"), ("present", "yes"), ("limit", "0"), ("limit", "many"), ("offset", "-1"), ("colour", "red"),
        ] {
            #expect(throws: HTTPQueryError.self) { try ClientQuery(parameters: [(name, value)]) }
            do {
                _ = try ClientQuery(parameters: [(name, value)])
            } catch {
                #expect(error.parameter == name)
            }
        }
    }

    @Test("the token matches itself only; short or unprintable tokens are refused")
    func token() throws {
        let token = try HTTPAccessToken("0123456789abcdef0123\n")
        #expect(token.matches("0123456789abcdef0123"))
        #expect(!token.matches("0123456789abcdef012"))
        #expect(!token.matches("0123456789abcdef01234"))
        #expect(!token.matches("x123456789abcdef0123"))
        #expect(!token.matches(""))
        #expect(throws: HTTPAccessTokenError.tooShort(5)) { try HTTPAccessToken("short") }
        #expect(throws: HTTPAccessTokenError.notPrintable) { try HTTPAccessToken("0123456789 abcdef0123") }
    }
}
