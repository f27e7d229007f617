import Coordinator
import Foundation
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import Topology
import WireProtocol

/// The live map in a real headless browser: a coordinator on the museum behind a real mosquitto,
/// three phones and a tag walking, the map opened at `/?client=…` with the token the server
/// requires. Saves a screenshot to `.build/artifacts/map.png`.
@Suite("Live map in a headless browser", .serialized)
struct LiveMapBrowserTests {
    let topics = try! Topics()
    static let phones = ["phone-a", "phone-b", "phone-c"]
    /// The phone that reports When In Use authorization: iOS cannot wake it, and the map says so.
    static let unwakeable = "phone-c"
    static let tagUUID = "5A1D0000-BEAC-4F1E-9E70-000000000001"  // a tag the museum's clients.csv admits
    static let tag = "\(tagUUID).7.1"

    @Test(
        "the map draws one moving marker per client and the selected phone's monitored set; without the token nothing is served",
        .requires(HeadlessChromium.executable != nil, HeadlessChromium.missingMessage))
    func liveMap() async throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let token = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined()
        let port = try LoopbackPort.hold()
        defer { LoopbackPort.release(port) }
        try await withMosquittoBroker { broker in
            let coordinator = try await CoordinatorHarness.start(broker: broker, httpPort: port) { configuration in
                configuration.httpToken = try? HTTPAccessToken(token)
            }
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { publisher in
                let walking = Task { try await Self.walk(publisher, topology: topology, topics: topics) }
                defer { walking.cancel() }
                try await checkAccess(port: port, token: token)
                try await checkPage(port: port, token: token, core: coordinator.service.core)
                walking.cancel()
                _ = await walking.result
            }
            await coordinator.stop()
        }
    }

    /// Without the token: 401 with `WWW-Authenticate: Bearer` for the map, the API and the stream;
    /// `/healthz` and `/metrics` stay open; with it (header or query) the API answers.
    func checkAccess(port: Int, token: String) async throws {
        for path in [
            "/", "/api/clients", "/api/topology", "/api/stream", "/api/clients/phone-a", "/api/stream?token=wrong-token-0123456789",
        ] {
            let (code, headers, _) = try await CoordinatorHarness.get(port: port, path, headers: [])
            #expect(code == 401, "\(path) without the token")
            #expect(headers.contains { $0.lowercased().hasPrefix("www-authenticate: bearer") }, "\(path): \(headers)")
        }
        let (wrong, _, _) = try await CoordinatorHarness.get(
            port: port, "/api/clients", headers: ["Authorization: Bearer nope-nope-nope-nope"])
        #expect(wrong == 401)
        #expect(try await CoordinatorHarness.get(port: port, "/healthz").0 == 200)
        #expect(try await CoordinatorHarness.get(port: port, "/metrics").0 == 200)
        let (code, _, body) = try await CoordinatorHarness.get(
            port: port, "/api/clients?kind=phone", headers: ["Authorization: Bearer \(token)"])
        #expect(code == 200)
        _ = try WireCoding.makeDecoder().decode(ClientList.self, from: body)
        let (bad, _, error) = try await CoordinatorHarness.get(port: port, "/api/clients?limit=none&token=\(token)", headers: [])
        #expect(bad == 400)
        #expect(String(decoding: error, as: UTF8.self).contains("\"parameter\":\"limit\""))
    }

    /// Opens the map, first without the token (nothing), then with it, and waits until every
    /// client's marker has moved and the selected phone's monitored set is highlighted.
    func checkPage(port: Int, token: String, core: CoordinatorCore) async throws {
        let browser = try HeadlessChromium()
        let denied = try await browser.open("http://127.0.0.1:\(port)/?client=phone-a")
        try await Task.sleep(for: .seconds(1))
        let deniedMarkers = try await browser.evaluate("document.querySelectorAll('[data-client-id]').length", session: denied) as? Int
        let deniedText = try await browser.evaluate("document.body ? document.body.innerText : ''", session: denied) as? String ?? ""
        #expect(deniedMarkers == 0)
        #expect(deniedText.contains("bearer token is required"), "\(deniedText)")

        let session = try await browser.open("http://127.0.0.1:\(port)/?client=phone-a&token=\(token)")
        let read = """
            JSON.stringify({stream: document.body.dataset.stream,
              markers: [...document.querySelectorAll('svg [data-client-id]')].map(e => [e.dataset.clientId, e.dataset.x, e.dataset.y, e.dataset.kind]),
              monitored: [...document.querySelectorAll('[data-region-id][data-monitored="true"]')].map(e => e.dataset.regionId),
              nowake: [...document.querySelectorAll('svg [data-client-id][data-wake="no"]')]
                .filter(e => getComputedStyle(e.querySelector('text.nowake')).display !== 'none').map(e => e.dataset.clientId),
              url: location.search})
            """
        var first: [String: [String]] = [:]
        var moved = Set<String>()
        var last = ""
        var highlighted = false
        let expected = Set(Self.phones + [Self.tag])
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(250))
            guard let text = try await browser.evaluate(read, session: session) as? String,
                let page = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            else { continue }
            last = text
            let markers = (page["markers"] as? [[String]]) ?? []
            for marker in markers {
                let id = marker[0]
                if let seen = first[id] { if seen != marker { moved.insert(id) } } else { first[id] = marker }
            }
            let monitored = Set((page["monitored"] as? [String]) ?? [])
            let truth = Set(await core.client("phone-a")?.regions ?? [])
            highlighted = !truth.isEmpty && monitored == truth
            let ids = markers.map { $0[0] }
            let unwakeable = (page["nowake"] as? [String]) ?? []
            let marked = unwakeable == [Self.unwakeable]
            if Set(ids) == expected, ids.count == expected.count, moved.isSuperset(of: expected), highlighted, marked { break }
        }
        let page = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "the page answered")
        let ids = ((page["markers"] as? [[String]]) ?? []).map { $0[0] }
        #expect(page["stream"] as? String == "open", "\(last)")
        #expect(ids.sorted() == expected.sorted(), "one marker per client: \(last)")
        #expect(moved.isSuperset(of: expected), "every marker moved; moved: \(moved.sorted())")
        #expect(highlighted, "phone-a's monitored set is highlighted: \(last)")
        #expect(page["nowake"] as? [String] == [Self.unwakeable], "only the When In Use phone is marked and labelled: \(last)")
        #expect(!(page["url"] as? String ?? "").contains("token"), "the token left the address bar")
        let png = try await browser.screenshot(session: session)
        let artifacts = SharedData.packageRoot.appendingPathComponent(".build/artifacts", isDirectory: true)
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try png.write(to: artifacts.appendingPathComponent("map.png"))
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        _ = try? await browser.send("Browser.close", limit: .seconds(2))
    }

    /// Three phones ranging the museum's beacons along different walks, and a tag the hall's and the
    /// first corridor gateway hear as it walks between them; a step every 400 ms.
    static func walk(_ publisher: MQTTClient, topology: Topology, topics: Topics) async throws {
        let placed = topology.regions.filter { $0.position != nil && $0.identity.minor != nil }
        let hall = try #require(topology.gateways.first { $0.id == "gw-hall" })
        let next = try #require(topology.gateways.first { $0.id == "gw-1" })
        var seq: UInt64 = 0
        var step = 0
        while !Task.isCancelled {
            for (p, phone) in phones.enumerated() {
                let region = placed[(p * 7 + step) % placed.count]
                let ranged = RangedBeacon(
                    uuid: region.identity.uuidString, major: region.identity.major ?? 0, minor: region.identity.minor ?? 0, rssi: -58)
                try await publisher.publish(
                    topic: topics.clientReport(try Identifier(phone)),
                    payload: try WireCoding.encode(
                        ClientReport(
                            ranged: [ranged],
                            phone: PhoneStatus(
                                authorization: phone == unwakeable ? .whenInUse : .always, backgroundRefresh: .available, lowPower: false))),
                    qos: .atLeastOnce)
            }
            // The tag goes back and forth between the two gateways (9 m apart).
            let along = Double(step % 10) / 9
            seq += 1
            for gateway in [hall, next] {
                let y = hall.position.y + along * (next.position.y - hall.position.y)
                let distance = max(0.5, abs(gateway.position.y - y))
                let start = Date()
                let sighting = Sighting(
                    format: "ibeacon", uuid: tagUUID, major: 7, minor: 1, address: "AA:BB:CC:DD:EE:01",
                    rssi: ((-59 - 20 * log10(distance)) * 10).rounded() / 10, rssiMax: -55, count: 5, txPower: -59, distance: distance)
                let batch = SightingsBatch(seq: seq, start: start.addingTimeInterval(-1), end: start, sightings: [sighting])
                try await publisher.publish(
                    topic: topics.sightings(try Identifier(gateway.id)), payload: try WireCoding.encode(batch), qos: .atLeastOnce)
            }
            step += 1
            try await Task.sleep(for: .milliseconds(400))
        }
    }
}
