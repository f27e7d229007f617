import Foundation
import WireProtocol

/// A device-based discovery payload, with the keys Home Assistant documents for it
/// (https://www.home-assistant.io/integrations/mqtt/#device-discovery-payload): the device (`dev`),
/// the origin (`o`), the components (`cmps`, each with its platform `p` and `uniqueId`) and the
/// options they share (availability, QoS).
struct HomeAssistantDiscovery: Encodable, Sendable, Equatable {
    struct Device: Encodable, Sendable, Equatable {
        var identifiers: [String]
        var name: String
        var manufacturer = "BeaconFleet"
        var model: String
        var swVersion = BeaconFleetVersion.current
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
        var valueTemplate: String
        var jsonAttributesTopic: String?
        var jsonAttributesTemplate: String?
        var sourceType: String?
        var deviceClass: String?
        var unitOfMeasurement: String?
        var stateClass: String?
        var suggestedDisplayPrecision: Int?
        var icon: String?
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
    /// A tracked client (phone or tag): a `device_tracker` whose state is where it is (see
    /// ``HomeAssistantClientState``) with its position as attributes, and the distance to that
    /// region's beacon; available while the coordinator is (its retained status, also its last will).
    static func client(_ id: String, kind: String, topics: HomeAssistantTopics, origin: Origin) -> HomeAssistantDiscovery {
        let object = topics.clientObjectID(id)
        let state = topics.state(object)
        return HomeAssistantDiscovery(
            dev: Device(identifiers: [object.description], name: id, model: kind == "phone" ? "Phone" : "Tag"), o: origin,
            cmps: [
                "location": Component(
                    p: "device_tracker", uniqueId: "\(object)_location", name: "Location", stateTopic: state,
                    valueTemplate: "{{ value_json.state }}", jsonAttributesTopic: state,
                    jsonAttributesTemplate: "{{ value_json.attributes | tojson }}", sourceType: "bluetooth_le"),
                "distance": Component(
                    p: "sensor", uniqueId: "\(object)_distance", name: "Distance", stateTopic: state,
                    valueTemplate: "{{ value_json.distance }}", deviceClass: "distance", unitOfMeasurement: "m",
                    stateClass: "measurement", suggestedDisplayPrecision: 1),
            ],
            availability: [
                Availability(
                    topic: topics.topics.coordinatorStatus,
                    valueTemplate: "{{ 'online' if value_json.state == 'online' else 'offline' }}")
            ])
    }

    /// A gateway: a connectivity `binary_sensor` read from the gateway's own retained status (its
    /// agent's last will says `offline`), so it needs no availability of its own.
    static func gateway(_ id: String, topics: HomeAssistantTopics, origin: Origin) -> HomeAssistantDiscovery {
        let object = topics.gatewayObjectID(id)
        let status = (try? Identifier(id)).map { topics.topics.gatewayStatus($0) } ?? ""
        return HomeAssistantDiscovery(
            dev: Device(identifiers: [object.description], name: id, model: "Gateway"), o: origin,
            cmps: [
                "connectivity": Component(
                    p: "binary_sensor", uniqueId: "\(object)_connectivity", name: "Connectivity", stateTopic: status,
                    valueTemplate: "{{ 'ON' if value_json.state == 'online' else 'OFF' }}", deviceClass: "connectivity")
            ])
    }
}
