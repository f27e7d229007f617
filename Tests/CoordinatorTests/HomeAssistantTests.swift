import BeaconKit
import Foundation
import Testing
import Topology
import WireProtocol

@testable import Coordinator
@testable import HomeAssistant

/// Home Assistant discovery without a broker: ids, payloads, places and pacing.
@Suite("Home Assistant discovery")
struct HomeAssistantTests {
    let topics = HomeAssistantTopics(prefix: "homeassistant", topics: try! Topics())

    @Test("object ids keep legal characters; others become _ with a hash, so different ids never meet")
    func objectIDs() {
        #expect(HomeAssistantObjectID("phone-1_a").description == "phone-1_a")
        let dotted = HomeAssistantObjectID("phone.1").description
        let underscored = HomeAssistantObjectID("phone_1").description
        #expect(dotted.hasPrefix("phone_1_") && dotted != underscored)
        #expect(dotted.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
        #expect(HomeAssistantObjectID("phone.1") == HomeAssistantObjectID("phone.1"), "stable")
        #expect(HomeAssistantObjectID("a/b").description != HomeAssistantObjectID("a.b").description)
        #expect(topics.config(topics.clientObjectID("p1")) == "homeassistant/device/beaconfleet_client_p1/config")
        #expect(topics.clientObjectID("gw-1") != topics.gatewayObjectID("gw-1"))
    }

    /// A discovery payload as Home Assistant reads it: parsed, with `cmps` required.
    func discovery(_ payload: [UInt8]) throws -> (json: [String: Any], components: [String: [String: Any]]) {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        return (json, try #require(json["cmps"] as? [String: [String: Any]]))
    }

    @Test("every discovery payload holds against Home Assistant's device discovery schema")
    func payloadsHoldAgainstTheSchema() throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let map = "http://coordinator.venue.lan:9090/"
        let payloads = [
            HomeAssistantDiscovery.client("p1", name: "p1", kind: "phone", topics: topics, origin: .init(), mapURL: map).encoded(),
            HomeAssistantDiscovery.client(
                "5A1D0000-BEAC-4F1E-9E70-000000000001.1000.7", name: "Trolley 7", kind: "tag", topics: topics, origin: .init(), mapURL: nil
            ).encoded(),
            HomeAssistantDiscovery.gateway("gw-1", topics: topics, origin: .init(), mapURL: map).encoded(),
            HomeAssistantDiscovery.coordinator(venue: topology.name, topics: topics, origin: .init(url: "https://example.org"), mapURL: map)
                .encoded(),
        ]
        for payload in payloads {
            let violations = HomeAssistantSchema.violations(try discovery(payload).json)
            #expect(violations.isEmpty, "\(String(decoding: payload, as: UTF8.self)): \(violations)")
        }
        // The checker itself finds what Home Assistant refuses.
        #expect(
            !HomeAssistantSchema.violations(["dev": ["name": "x"], "o": ["name": "o"], "cmps": ["a": ["p": "sensor", "name": "a"]]]).isEmpty
        )
        #expect(
            !HomeAssistantSchema.violations([
                "dev": ["identifiers": ["x"], "configuration_url": "0.0.0.0:9090"], "o": ["name": "o"],
                "cmps": ["a": ["p": "sensor", "unique_id": "u"]],
            ]).isEmpty)
    }

    @Test("a client's tracker reads its place from a plain state topic and its attributes from JSON, without templates")
    func clientPayload() throws {
        let (json, components) = try discovery(
            HomeAssistantDiscovery.client(
                "p1", name: "Visitor 1", kind: "phone", topics: topics, origin: .init(), mapURL: "http://map:9090/"
            )
            .encoded())
        let device = try #require(json["dev"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["beaconfleet_client_p1"])
        #expect(
            device["name"] as? String == "Visitor 1" && device["model"] as? String == "Phone" && device["serial_number"] as? String == "p1")
        #expect(device["manufacturer"] as? String == "BeaconFleet" && device["sw_version"] as? String == BeaconFleetVersion.current)
        #expect(
            device["via_device"] as? String == "beaconfleet_coordinator" && device["configuration_url"] as? String == "http://map:9090/")
        let tracker = try #require(components["location"])
        #expect(tracker["p"] as? String == "device_tracker" && tracker["source_type"] as? String == "bluetooth_le")
        #expect(tracker["state_topic"] as? String == "homeassistant/device/beaconfleet_client_p1/location")
        #expect(tracker["json_attributes_topic"] as? String == "homeassistant/device/beaconfleet_client_p1/attributes")
        #expect(tracker["value_template"] == nil && tracker["json_attributes_template"] == nil, "the payloads are used as they are")
        let distance = try #require(components["distance"])
        #expect(distance["p"] as? String == "sensor" && distance["device_class"] as? String == "distance")
        #expect(distance["unit_of_measurement"] as? String == "m" && distance["name"] as? String == "Distance to beacon")
        #expect((distance["json_attributes_template"] as? String)?.contains("value_json.beacon") == true)
        #expect(Set(components.values.compactMap { $0["unique_id"] as? String }).count == 2)
        let availability = try #require((json["availability"] as? [[String: Any]])?.first)
        #expect(availability["topic"] as? String == "beaconfleet/v1/coordinator/status")
        #expect((availability["value_template"] as? String)?.contains("value_json.state") == true)
        #expect(json["qos"] as? Int == 1)
    }

    @Test("a gateway's payload is a connectivity binary sensor on the gateway's own status topic")
    func gatewayPayload() throws {
        let (json, components) = try discovery(
            HomeAssistantDiscovery.gateway("gw-1", topics: topics, origin: .init(), mapURL: nil).encoded())
        let sensor = try #require(components["connectivity"])
        #expect(sensor["p"] as? String == "binary_sensor" && sensor["device_class"] as? String == "connectivity")
        #expect(sensor["state_topic"] as? String == "beaconfleet/v1/gateways/gw-1/status")
        #expect((json["dev"] as? [String: Any])?["model"] as? String == "Gateway")
        #expect((json["dev"] as? [String: Any])?["configuration_url"] == nil, "no map, no URL")
    }

    @Test("the coordinator's device shows its status and client count, with the live map as its configuration URL")
    func coordinatorPayload() throws {
        let (json, components) = try discovery(
            HomeAssistantDiscovery.coordinator(venue: "museum", topics: topics, origin: .init(), mapURL: "http://c:9090/").encoded())
        let device = try #require(json["dev"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["beaconfleet_coordinator"] && device["model"] as? String == "Coordinator")
        #expect(device["name"] as? String == "BeaconFleet museum" && device["configuration_url"] as? String == "http://c:9090/")
        let status = try #require(components["status"])
        #expect(status["p"] as? String == "binary_sensor" && status["state_topic"] as? String == "beaconfleet/v1/coordinator/status")
        let clients = try #require(components["clients"])
        #expect(clients["p"] as? String == "sensor" && clients["value_template"] as? String == "{{ value_json.clients }}")
        #expect((clients["availability"] as? [[String: Any]])?.first?["topic"] as? String == "beaconfleet/v1/coordinator/status")
        #expect(json["availability"] == nil, "its status reads the status topic itself, also while offline")
        // Its payloads render through Home Assistant's templates as numbers and ON/OFF.
        let online = try WireCoding.encode(CoordinatorStatus(state: .online, clients: 12))
        #expect(HomeAssistantSchema.render(clients["value_template"] as! String, online) == "12")
        #expect(HomeAssistantSchema.render(status["value_template"] as! String, online) == "ON")
        let will = try WireCoding.encode(CoordinatorStatus(state: .offline))
        #expect(HomeAssistantSchema.render(status["value_template"] as! String, will) == "OFF")
    }

    @Test("the map URL: a wildcard address becomes the host's name, IPv6 is bracketed, Home Assistant's rule is checked")
    func mapURL() throws {
        #expect(HomeAssistantConfiguration.mapURL(host: "0.0.0.0", port: 9090, hostName: "coord") == "http://coord:9090/")
        #expect(HomeAssistantConfiguration.mapURL(host: "10.0.0.5", port: 80) == "http://10.0.0.5:80/")
        #expect(HomeAssistantConfiguration.mapURL(host: "::1", port: 9090) == "http://[::1]:9090/")
        #expect(throws: HomeAssistantError.self) { try HomeAssistantConfiguration.validMapURL("coordinator:9090") }
        #expect(throws: HomeAssistantError.self) { try HomeAssistantConfiguration.validMapURL("ftp://coordinator/") }
        #expect(try HomeAssistantConfiguration.validMapURL("https://beaconfleet.example/") == "https://beaconfleet.example/")
    }

    /// The place Home Assistant's tracker shows for a state message, and the zones it is in.
    func shown(_ state: HomeAssistantClientState) throws -> (location: String?, attributes: [String: Any]) {
        let attributes = try JSONEncoder().encode(state.attributes)
        return (
            HomeAssistantSchema.trackerLocation(payload: state.location),
            try #require(HomeAssistantSchema.trackerAttributes(payload: Array(attributes)))
        )
    }

    @Test("Home Assistant's tracker shows the region it is inside, else the nearest in range, else home; not_home once gone")
    func clientState() throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let places = HomeAssistantPlaces(topology: topology)
        func snapshot(_ position: Position?, inside: [String] = [], present: Bool = true) -> ClientSnapshot {
            ClientSnapshot(
                id: "p1", version: 1, regions: [], inside: inside, position: position, lastSeen: Date(), kind: "phone", present: present,
                advertising: nil)
        }
        // Inside the hall (beacon at 10,5), 2 m from its beacon, also inside the venue-wide region.
        let inside = HomeAssistantClientState(
            snapshot(Position(x: 10, y: 7, level: "G", confidence: 3.04), inside: ["museum", "hall"]), places: places)
        let (location, attributes) = try shown(inside)
        #expect(location == "hall" && inside.location == "hall")
        #expect(
            attributes["distance"] as? Double == 2 && attributes["beacon"] as? String == "hall" && attributes["confidence"] as? Double == 3)
        #expect(attributes["x"] as? Double == 10 && attributes["y"] as? Double == 7 && attributes["level"] as? String == "G")
        #expect(attributes["in_zones"] as? [String] == ["zone.hall", "zone.home"] && attributes["id"] as? String == "p1")
        // Inside nothing, 1 m from the cafe's beacon (17,9): the cafe is in range.
        let near = HomeAssistantClientState(snapshot(Position(x: 17, y: 10, level: "G")), places: places)
        #expect(try shown(near).location == "cafe" && near.attributes.distance == 1)
        // Only the venue-wide region: its name, no distance.
        let venue = HomeAssistantClientState(snapshot(nil, inside: ["museum"]), places: places)
        #expect(try shown(venue).location == "museum" && venue.attributes.distance == nil && venue.attributes.beacon == nil)
        // Far from every beacon (off the plan): home, no distance.
        let far = HomeAssistantClientState(snapshot(Position(x: 500, y: 500, level: "G")), places: places)
        #expect(try shown(far).location == "home" && far.attributes.inZones == ["zone.home"])
        let gone = HomeAssistantClientState(snapshot(Position(x: 10, y: 7, level: "G"), inside: ["hall"], present: false), places: places)
        let (goneLocation, goneAttributes) = try shown(gone)
        #expect(goneLocation == "not_home" && goneAttributes["present"] as? Bool == false && goneAttributes["in_zones"] as? [String] == [])
        // The distance is written as null, which the sensor's template renders as None: unknown.
        let farAttributes = try JSONEncoder().encode(far.attributes)
        #expect(String(decoding: farAttributes, as: UTF8.self).contains("\"distance\":null"))
        #expect(HomeAssistantSchema.render("{{ value_json.distance }}", Array(farAttributes)) == "None")
        #expect(HomeAssistantSchema.render("{{ value_json.distance }}", Array(try JSONEncoder().encode(inside.attributes))) == "2")
    }

    @Test("in a venue with rooms the tracker shows the room's name (the region stays an attribute); away is still not_home")
    func clientStateInRoom() throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let places = HomeAssistantPlaces(topology: topology)
        func snapshot(_ position: Position?, present: Bool = true) -> ClientSnapshot {
            ClientSnapshot(
                id: "p1", version: 1, regions: [], inside: ["hall"], position: position, lastSeen: Date(), kind: "phone", present: present,
                advertising: nil)
        }
        let inRoom = HomeAssistantClientState(snapshot(Position(x: 10, y: 7, level: "G", room: "Entrance hall")), places: places)
        #expect(
            try shown(inRoom).location == "Entrance hall" && inRoom.attributes.room == "Entrance hall" && inRoom.attributes.region == "hall"
        )
        #expect(inRoom.attributes.inZones == ["zone.entrance_hall", "zone.hall", "zone.home"])
        let gone = HomeAssistantClientState(
            snapshot(Position(x: 10, y: 7, level: "G", room: "Entrance hall"), present: false), places: places)
        #expect(try shown(gone).location == "not_home" && gone.attributes.room == nil)
    }

    @Test("a place named like one of the tracker's reserved payloads is written with its id, so it is never read as home, away or reset")
    func reservedNames() {
        for name in ["home", "not_home", "None", " "] {
            let payload = HomeAssistantClientState.payload(place: name, id: "r7")
            #expect(HomeAssistantSchema.trackerLocation(payload: payload) == payload, "\(name) → \(payload)")
        }
        #expect(HomeAssistantClientState.payload(place: "Café Nord", id: "c") == "Café Nord")
        #expect(HomeAssistantZone.entityID(named: "Café Nord – 2") == "zone.cafe_nord_2")
        #expect(HomeAssistantZone.entityID(named: "hall-1") == "zone.hall_1")
    }

    @Test("tags are named by clients.csv's name where it names them, else Tag and their major.minor; phones by their id")
    func tagNames() throws {
        let uuid = "5A1D0000-BEAC-4F1E-9E70-000000000001"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ha-names-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: CoordinatorHarness.museum, to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        try """
        role,uuid,major,address,name
        client,\(uuid),1000,,Trolley
        client,\(uuid),2000-2999,,
        client,,,AC:23:3F:00:00:01,Wheelchair
        """.write(to: directory.appendingPathComponent("clients.csv"), atomically: true, encoding: .utf8)
        let topology = try Topology.load(directory: directory)
        func name(_ id: String, kind: String = "tag") -> String {
            HomeAssistantBridge.name(
                of: ClientSnapshot(
                    id: id, version: 1, regions: [], inside: [], position: nil, lastSeen: Date(), kind: kind, present: true,
                    advertising: nil),
                topology: topology)
        }
        #expect(name("\(uuid).1000.7") == "Trolley 7")
        #expect(name("\(uuid).2001.3") == "Tag 2001.3", "a rule without a name")
        #expect(name("addr-AC233F000001") == "Wheelchair")
        #expect(name("phone-7", kind: "phone") == "phone-7")
        #expect(BeaconIdentity(clientIdentifier: "\(uuid).1000.7")?.clientIdentifier == "\(uuid).1000.7")
        #expect(BeaconIdentity(clientIdentifier: "phone-7") == nil)
    }

    @Test("the pacer sends each client at most once per interval, the longest waiting first, within the limit")
    func pacer() {
        var pacer = HomeAssistantPacer(interval: .seconds(1))
        let start = ContinuousClock.now
        pacer.add(["a", "b", "c"])
        pacer.add(["a"])  // already waiting: keeps its place, once
        #expect(pacer.take(upTo: 2, now: start) == ["a", "b"])
        pacer.add(["a", "d"])
        // a was just sent: it waits; c (older) and d go.
        #expect(pacer.take(upTo: 5, now: start + .milliseconds(100)) == ["c", "d"])
        #expect(pacer.count == 1)
        #expect(pacer.take(upTo: 5, now: start + .milliseconds(900)) == [])
        #expect(pacer.take(upTo: 5, now: start + .seconds(1)) == ["a"])
        // A forgotten (expired) client goes at once when it comes back.
        pacer.forget("a")
        pacer.add(["a"])
        #expect(pacer.take(upTo: 5, now: start + .milliseconds(1_100)) == ["a"])
    }
}
