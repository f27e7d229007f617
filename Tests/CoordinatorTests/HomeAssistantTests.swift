import Foundation
import Testing
import Topology
import WireProtocol

@testable import Coordinator

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

    @Test("a client's discovery payload has Home Assistant's device-based keys and the coordinator's availability")
    func clientPayload() throws {
        let payload = HomeAssistantDiscovery.client("p1", kind: "phone", topics: topics, origin: .init()).encoded()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        let device = try #require(json["dev"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["beaconfleet_client_p1"])
        #expect(device["name"] as? String == "p1" && device["model"] as? String == "Phone")
        #expect(device["manufacturer"] as? String == "BeaconFleet" && device["sw_version"] as? String == BeaconFleetVersion.current)
        let origin = try #require(json["o"] as? [String: Any])
        #expect(origin["name"] != nil && origin["sw"] as? String == BeaconFleetVersion.current)
        let components = try #require(json["cmps"] as? [String: [String: Any]])
        let tracker = try #require(components["location"])
        let state = "homeassistant/device/beaconfleet_client_p1/state"
        #expect(tracker["p"] as? String == "device_tracker" && tracker["source_type"] as? String == "bluetooth_le")
        #expect(tracker["state_topic"] as? String == state && tracker["json_attributes_topic"] as? String == state)
        let distance = try #require(components["distance"])
        #expect(distance["p"] as? String == "sensor" && distance["device_class"] as? String == "distance")
        #expect(distance["unit_of_measurement"] as? String == "m")
        #expect(Set(components.values.compactMap { $0["unique_id"] as? String }).count == 2)
        let availability = try #require((json["availability"] as? [[String: Any]])?.first)
        #expect(availability["topic"] as? String == "beaconfleet/v1/coordinator/status")
        #expect((availability["value_template"] as? String)?.contains("value_json.state") == true)
        #expect(json["qos"] as? Int == 1)
    }

    @Test("a gateway's payload is a connectivity binary sensor on the gateway's own status topic")
    func gatewayPayload() throws {
        let payload = HomeAssistantDiscovery.gateway("gw-1", topics: topics, origin: .init()).encoded()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        let sensor = try #require((json["cmps"] as? [String: [String: Any]])?["connectivity"])
        #expect(sensor["p"] as? String == "binary_sensor" && sensor["device_class"] as? String == "connectivity")
        #expect(sensor["state_topic"] as? String == "beaconfleet/v1/gateways/gw-1/status")
        #expect((json["dev"] as? [String: Any])?["model"] as? String == "Gateway")
    }

    @Test("a client's state names the region it is inside, else the nearest in range, else home; not_home once gone")
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
        #expect(inside.state == "hall" && inside.distance == 2 && inside.attributes.confidence == 3)
        #expect(inside.attributes.x == 10 && inside.attributes.y == 7 && inside.attributes.level == "G")
        // Inside nothing, 1 m from the cafe's beacon (17,9): the cafe is in range.
        let near = HomeAssistantClientState(snapshot(Position(x: 17, y: 10, level: "G")), places: places)
        #expect(near.state == "cafe" && near.distance == 1)
        // Only the venue-wide region: its name, no distance.
        let venue = HomeAssistantClientState(snapshot(nil, inside: ["museum"]), places: places)
        #expect(venue.state == "museum" && venue.distance == nil)
        // Far from every beacon (off the plan): home, no distance.
        let far = HomeAssistantClientState(snapshot(Position(x: 500, y: 500, level: "G")), places: places)
        #expect(far.state == "home" && far.distance == nil)
        let gone = HomeAssistantClientState(snapshot(Position(x: 10, y: 7, level: "G"), inside: ["hall"], present: false), places: places)
        #expect(gone.state == "not_home" && gone.distance == nil && gone.attributes.present == false)
        // The distance is written as null (Home Assistant: unknown), not left out.
        let encoded = String(decoding: try JSONEncoder().encode(far), as: UTF8.self)
        #expect(encoded.contains("\"distance\":null"))
    }

    @Test("in a venue with rooms the state is the room's name (the region stays an attribute); away is still not_home")
    func clientStateInRoom() throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let places = HomeAssistantPlaces(topology: topology)
        func snapshot(_ position: Position?, present: Bool = true) -> ClientSnapshot {
            ClientSnapshot(
                id: "p1", version: 1, regions: [], inside: ["hall"], position: position, lastSeen: Date(), kind: "phone", present: present,
                advertising: nil)
        }
        let inRoom = HomeAssistantClientState(snapshot(Position(x: 10, y: 7, level: "G", room: "Entrance hall")), places: places)
        #expect(inRoom.state == "Entrance hall" && inRoom.attributes.room == "Entrance hall" && inRoom.attributes.region == "hall")
        let gone = HomeAssistantClientState(snapshot(Position(x: 10, y: 7, level: "G", room: "Entrance hall"), present: false), places: places)
        #expect(gone.state == "not_home")
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
