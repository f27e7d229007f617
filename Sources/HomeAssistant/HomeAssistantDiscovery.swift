import Foundation
import WireProtocol

/// A device-based discovery payload, with the keys Home Assistant documents for it
/// (https://www.home-assistant.io/integrations/mqtt/#device-discovery-payload) and its
/// `DEVICE_DISCOVERY_SCHEMA` requires: the device (`dev`, with at least one identifier), the origin
/// (`o`, with a `name`), the components (`cmps`, each with its platform `p` and a `unique_id`) and
/// the options they share (availability, QoS).
struct HomeAssistantDiscovery: Encodable, Sendable, Equatable {
    struct Device: Encodable, Sendable, Equatable {
        var identifiers: [String]
        var name: String
        var manufacturer = "BeaconFleet"
        var model: String
        var swVersion = BeaconFleetVersion.current
        /// The client's or gateway's own id, shown on the device's page.
        var serialNumber: String?
        /// The coordinator's device: clients and gateways are reached through it.
        var viaDevice: String?
        /// Where the device is configured (the coordinator's live map, with `--http`).
        var configurationUrl: String?
    }

    struct Origin: Encodable, Sendable, Equatable {
        var name = "BeaconFleet coordinator"
        var sw = BeaconFleetVersion.current
        /// Where to read about it (``HomeAssistantConfiguration/originURL``); left out when unset.
        var url: String?
    }

    /// One entity; the options a platform does not use are left out.
    struct Component: Encodable, Sendable, Equatable {
        var p: String
        var uniqueId: String
        var name: String
        var stateTopic: String
        /// Left out where the state payload is the state itself (the tracker's).
        var valueTemplate: String?
        var jsonAttributesTopic: String?
        var jsonAttributesTemplate: String?
        var sourceType: String?
        var deviceClass: String?
        var unitOfMeasurement: String?
        var stateClass: String?
        var suggestedDisplayPrecision: Int?
        var entityCategory: String?
        var icon: String?
        /// Per component, where the components of one device differ (the coordinator's status reads its topic itself).
        var availability: [Availability]?
    }

    /// An availability topic with the template that reads `online` / `offline` out of its payload.
    struct Availability: Encodable, Sendable, Equatable {
        var topic: String
        var valueTemplate: String
    }

    var dev: Device
    var o: Origin
    var cmps: [String: Component]
    var availability: [Availability]?
    var qos = 1

    /// The payload's JSON (keys sorted, so the same device always gives the same bytes).
    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase  // Home Assistant's option names
        return (try? Array(encoder.encode(self))) ?? []
    }
}

extension HomeAssistantDiscovery {
    /// Available while the coordinator's retained status (also its last will) says `online`.
    static func coordinatorAvailability(_ topics: HomeAssistantTopics) -> [Availability] {
        [
            Availability(
                topic: topics.topics.coordinatorStatus, valueTemplate: "{{ 'online' if value_json.state == 'online' else 'offline' }}")
        ]
    }

    /// A tracked client (phone or tag), named `name`: a `device_tracker` whose state topic carries
    /// where it is as it is (``HomeAssistantClientState/location``: no template) and whose
    /// attributes come from the attributes topic, and the distance to the beacon it is placed by
    /// (named in the sensor's `beacon` attribute); available while the coordinator is.
    static func client(
        _ id: String, name: String, kind: String, topics: HomeAssistantTopics, origin: Origin, mapURL: String?
    ) -> HomeAssistantDiscovery {
        let object = topics.clientObjectID(id)
        let attributes = topics.attributes(object)
        return HomeAssistantDiscovery(
            dev: Device(
                identifiers: [object.description], name: name, model: kind == "phone" ? "Phone" : "Tag", serialNumber: id,
                viaDevice: topics.coordinatorObjectID.description, configurationUrl: mapURL),
            o: origin,
            cmps: [
                "location": Component(
                    p: "device_tracker", uniqueId: "\(object)_location", name: "Location", stateTopic: topics.location(object),
                    jsonAttributesTopic: attributes, sourceType: "bluetooth_le"),
                "distance": Component(
                    p: "sensor", uniqueId: "\(object)_distance", name: "Distance to beacon", stateTopic: attributes,
                    valueTemplate: "{{ value_json.distance }}", jsonAttributesTopic: attributes,
                    jsonAttributesTemplate: "{{ {'beacon': value_json.beacon, 'region': value_json.region} | tojson }}",
                    deviceClass: "distance", unitOfMeasurement: "m", stateClass: "measurement", suggestedDisplayPrecision: 1),
            ],
            availability: coordinatorAvailability(topics))
    }

    /// A gateway: a connectivity `binary_sensor` read from the gateway's own retained status (its
    /// agent's last will says `offline`), so it needs no availability of its own.
    static func gateway(_ id: String, topics: HomeAssistantTopics, origin: Origin, mapURL: String?) -> HomeAssistantDiscovery {
        let object = topics.gatewayObjectID(id)
        let status = (try? Identifier(id)).map { topics.topics.gatewayStatus($0) } ?? ""
        return HomeAssistantDiscovery(
            dev: Device(
                identifiers: [object.description], name: id, model: "Gateway", serialNumber: id,
                viaDevice: topics.coordinatorObjectID.description, configurationUrl: mapURL),
            o: origin,
            cmps: [
                "connectivity": Component(
                    p: "binary_sensor", uniqueId: "\(object)_connectivity", name: "Connectivity", stateTopic: status,
                    valueTemplate: "{{ 'ON' if value_json.state == 'online' else 'OFF' }}", deviceClass: "connectivity")
            ])
    }

    /// The coordinator itself, named after the venue: its status (a connectivity sensor on its
    /// retained status, whose last will turns it off) and its client count (unavailable while it
    /// is offline), with the live map as its configuration URL when it serves one.
    static func coordinator(venue: String, topics: HomeAssistantTopics, origin: Origin, mapURL: String?) -> HomeAssistantDiscovery {
        let object = topics.coordinatorObjectID
        let status = topics.topics.coordinatorStatus
        return HomeAssistantDiscovery(
            dev: Device(
                identifiers: [object.description], name: "BeaconFleet \(venue)", model: "Coordinator", serialNumber: topics.topics.prefix,
                configurationUrl: mapURL),
            o: origin,
            cmps: [
                "status": Component(
                    p: "binary_sensor", uniqueId: "\(object)_status", name: "Status", stateTopic: status,
                    valueTemplate: "{{ 'ON' if value_json.state == 'online' else 'OFF' }}", deviceClass: "connectivity",
                    entityCategory: "diagnostic"),
                "clients": Component(
                    p: "sensor", uniqueId: "\(object)_clients", name: "Clients", stateTopic: status,
                    valueTemplate: "{{ value_json.clients }}", stateClass: "measurement", icon: "mdi:account-multiple",
                    availability: coordinatorAvailability(topics)),
            ])
    }
}
