import Coordinator
import Foundation
import HomeAssistant
import MQTT
import MosquittoTesting
import TestSupport
import Testing
import Topology
import WireProtocol

/// Home Assistant discovery through a real mosquitto, with the built coordinator (so that it can be
/// killed with -9 and its last will seen).
@Suite("Home Assistant discovery through a real broker", .serialized)
struct HomeAssistantBrokerTests {
    let topics = try! Topics()
    var discovery: HomeAssistantTopics { HomeAssistantTopics(prefix: "homeassistant", topics: topics) }

    @Test(
        "configs for clients and gateways appear retained with the device-based keys, states follow a walk, Home Assistant's online brings them again, an expired client's config is removed, a kill -9 makes them unavailable",
        .requiresBeaconFleetBinary)
    func discoveryThroughTheBroker() async throws {
        let topology = try Topology.load(directory: CoordinatorHarness.museum)
        let files = try CoordinatorHarness.ProcessFiles("coordinator-ha")
        defer { files.release() }
        try await withMosquittoBroker { broker in
            try await withConnectedClient(MQTTConfiguration(url: broker.url)) { observer in
                let seen = MessageLog(observer.messages)
                defer { seen.stop() }
                try await observer.subscribe("homeassistant/#")
                try await observer.subscribe(topics.coordinatorStatus)
                // A short idle timeout: a client that stops reporting expires within it plus one housekeeping round (5 s).
                // Not shorter: the walker's keep-alive reports come from this loaded test process, and at 3 s
                // a stall of a few seconds let the walker expire too.
                let process = try CoordinatorHarness.launch(
                    broker: broker, files: files,
                    extraArguments: ["--home-assistant", "--idle-timeout", "8"])
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                try await CoordinatorHarness.waitUntilServing(files, process: process)

                // Every gateway of the topology: a connectivity sensor on its own status topic.
                for gateway in topology.gateways {
                    let config = try await seen.json(on: discovery.config(discovery.gatewayObjectID(gateway.id)), "\(gateway.id)'s config")
                    let sensor = try #require((config["cmps"] as? [String: [String: Any]])?["connectivity"])
                    #expect(sensor["p"] as? String == "binary_sensor" && sensor["device_class"] as? String == "connectivity")
                    #expect(sensor["state_topic"] as? String == topics.gatewayStatus(try Identifier(gateway.id)))
                }

                // Two phones: one walks hall → corridor-1 → corridor-2, one reports once and goes quiet.
                try await withConnectedClient(MQTTConfiguration(url: broker.url)) { phones in
                    func report(_ client: String, _ events: [RegionEvent]) async throws {
                        try await phones.publish(
                            topic: topics.clientReport(try Identifier(client)), payload: try WireCoding.encode(ClientReport(events: events))
                        )
                    }
                    try await report("phone-quiet", [RegionEvent(type: .enter, region: "hall-tickets")])
                    try await report("phone-walk", [RegionEvent(type: .enter, region: "hall")])
                    let walker = discovery.clientObjectID("phone-walk")
                    let quiet = discovery.clientObjectID("phone-quiet")

                    let config = try await seen.json(on: discovery.config(walker), "phone-walk's config")
                    let device = try #require(config["dev"] as? [String: Any])
                    #expect(device["identifiers"] as? [String] == [walker.description] && device["name"] as? String == "phone-walk")
                    #expect(device["manufacturer"] as? String == "BeaconFleet" && device["model"] as? String == "Phone")
                    #expect(device["sw_version"] as? String == BeaconFleetVersion.current)
                    #expect((config["o"] as? [String: Any])?["name"] as? String != nil)
                    let components = try #require(config["cmps"] as? [String: [String: Any]])
                    #expect(components["location"]?["p"] as? String == "device_tracker")
                    #expect(components["location"]?["source_type"] as? String == "bluetooth_le")
                    #expect(components["location"]?["state_topic"] as? String == discovery.location(walker))
                    #expect(components["location"]?["json_attributes_topic"] as? String == discovery.attributes(walker))
                    #expect(HomeAssistantSchema.violations(config).isEmpty, "\(HomeAssistantSchema.violations(config))")
                    #expect(
                        components["distance"]?["p"] as? String == "sensor"
                            && components["distance"]?["unit_of_measurement"] as? String == "m")
                    let availability = try #require((config["availability"] as? [[String: Any]])?.first)
                    #expect(availability["topic"] as? String == topics.coordinatorStatus)

                    // The walk: each step's location payload is the region it entered, which Home Assistant's
                    // tracker takes as its state as it is.
                    _ = try await seen.message(on: discovery.location(walker), "phone-walk in the hall") {
                        HomeAssistantSchema.trackerLocation(payload: $0.payloadString) == "hall"
                    }
                    let attributes = try await seen.json(on: discovery.attributes(walker), "phone-walk's attributes in the hall") {
                        $0["region"] as? String == "hall"
                    }
                    #expect(attributes["x"] is Double && attributes["y"] is Double && attributes["level"] as? String == "G")
                    #expect(
                        attributes["confidence"] is Double && attributes["distance"] is Double && attributes["beacon"] as? String == "hall")
                    #expect(attributes["in_zones"] as? [String] == ["zone.hall", "zone.home"])
                    var previous = "hall"
                    for next in ["corridor-1", "corridor-2"] {
                        try await report(
                            "phone-walk", [RegionEvent(type: .exit, region: previous), RegionEvent(type: .enter, region: next)])
                        _ = try await seen.message(on: discovery.location(walker), "phone-walk in \(next)") {
                            HomeAssistantSchema.trackerLocation(payload: $0.payloadString) == next
                        }
                        previous = next
                    }
                    // The coordinator's own device, with its client count.
                    let coordinator = try await seen.json(on: discovery.config(discovery.coordinatorObjectID), "the coordinator's config")
                    #expect(HomeAssistantSchema.violations(coordinator).isEmpty)
                    #expect((coordinator["dev"] as? [String: Any])?["model"] as? String == "Coordinator")

                    // The quiet phone expires (its retained regions are cleared): config and state removed.
                    // The walker keeps reporting meanwhile, so it stays.
                    let keepAlive = Task {
                        while !Task.isCancelled {
                            try? await report("phone-walk", [])
                            try? await Task.sleep(for: .seconds(1))
                        }
                    }
                    defer { keepAlive.cancel() }
                    _ = try await seen.message(on: discovery.config(quiet), "phone-quiet's config removed", within: .seconds(45)) {
                        $0.payload.isEmpty
                    }
                    _ = try await seen.message(on: discovery.location(quiet), "phone-quiet's location removed") { $0.payload.isEmpty }
                    _ = try await seen.message(on: discovery.attributes(quiet), "phone-quiet's attributes removed") { $0.payload.isEmpty }

                    // Retained: a subscriber that comes later gets the walker's and the gateways' configs, not the expired one's.
                    let retained = try await MessageLog.retained(broker, "homeassistant/#")
                    #expect(retained[discovery.config(walker)]?.isEmpty == false)
                    #expect(retained[discovery.location(walker)].map { String(decoding: $0, as: UTF8.self) } == "corridor-2")
                    #expect(retained[discovery.attributes(walker)]?.isEmpty == false)
                    #expect(retained[discovery.legacyState(walker)] == nil, "the old JSON state topic is cleared")
                    #expect(retained[discovery.config(discovery.gatewayObjectID(topology.gateways[0].id))]?.isEmpty == false)
                    #expect(retained[discovery.config(quiet)] == nil)

                    // Home Assistant restarts: its `online` brings every config again (a live, not a retained, delivery).
                    let mark = seen.count
                    try await observer.publish(topic: "homeassistant/status", string: "online", retain: false)
                    _ = try await seen.message(on: discovery.config(walker), "phone-walk's config again", after: mark) { !$0.retain }
                    _ = try await seen.message(
                        on: discovery.config(discovery.gatewayObjectID(topology.gateways[0].id)), "a gateway's config again", after: mark
                    ) { !$0.retain }
                    keepAlive.cancel()

                    // A kill -9: the broker publishes the coordinator's last will on the availability topic.
                    let killed = seen.count
                    kill(process.processIdentifier, SIGKILL)
                    _ = await process.exited()
                    let status = try await seen.message(on: topics.coordinatorStatus, "the coordinator's last will", after: killed) { _ in
                        true
                    }
                    let decoded = try WireCoding.decode(CoordinatorStatus.self, from: status.payload, topic: status.topic)
                    #expect(decoded.state == .offline, "the availability template reads `offline`: the entities become unavailable")
                }
            }
        }
    }
}
