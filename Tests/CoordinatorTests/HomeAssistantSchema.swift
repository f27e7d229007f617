import Foundation

/// Home Assistant's MQTT rules, as its source states them (Home Assistant 2026.11.0,
/// `homeassistant/components/mqtt/`; 2026.2.3 reads them the same), written out so that the tests
/// hold every payload the bridge sends against them without running Home Assistant:
///
/// - the device discovery schema (`schemas.py` `DEVICE_DISCOVERY_SCHEMA`, l. 268–280; device info
///   l. 145–182, `validate_device_has_at_least_one_identifier` l. 126; origin l. 184–192;
///   components need a platform `p` and, with any other option, a `unique_id`: `check_unique_id`
///   l. 237–250) and each platform's options (`device_tracker.py` l. 65–83, `sensor.py` l. 78–92 and its `None` as unknown l. 320,
///   `binary_sensor.py` l. 67, the common entity options `schemas.py` l. 202–218). A platform's
///   discovery schema drops unknown options silently (`REMOVE_EXTRA`), so an option not in its
///   list is a violation here: Home Assistant would never see it;
/// - the tracker's parsing rule (`device_tracker.py` `_tracker_message_received`, l. 125–145): the
///   payload rendered by `value_template` (none: the payload itself) is ignored when blank, is
///   `home` when it equals `payload_home` (`home`), `not_home` when it equals `payload_not_home`
///   (`not_home`), unknown when it equals `payload_reset` (`None`), and otherwise the location
///   name is **the raw payload** (`msg.payload`, not the rendered value: hence a JSON state message
///   showed as JSON);
/// - the attributes rule (`entity.py` `_attributes_message_received`, l. 611–633: a JSON object,
///   less `MQTT_ATTRIBUTES_BLOCKED` l. 139–158; the tracker reads `latitude`/`longitude`/`gps_accuracy`
///   as a position, `device_tracker.py` l. 160–224, which BeaconFleet's attributes must not carry).
enum HomeAssistantSchema {
    static let platforms: Set<String> = ["device_tracker", "sensor", "binary_sensor"]
    static let sourceTypes: Set<String> = ["gps", "router", "bluetooth", "bluetooth_le"]
    static let stateClasses: Set<String> = ["measurement", "measurement_angle", "total", "total_increasing"]

    /// Options every entity platform takes (`schemas.py` MQTT_ENTITY_COMMON_SCHEMA and availability, `config.py` MQTT_RO_SCHEMA).
    static let common: Set<String> = [
        "p", "platform", "unique_id", "name", "availability", "availability_topic", "availability_template", "availability_mode",
        "payload_available", "payload_not_available", "device", "entity_picture", "origin", "enabled_by_default", "entity_category",
        "icon", "json_attributes_topic", "json_attributes_template", "default_entity_id", "message_expiry_interval", "visible_by_default",
        "qos", "encoding", "state_topic", "value_template",
    ]
    static let options: [String: Set<String>] = [
        "device_tracker": common.union(["payload_home", "payload_not_home", "payload_reset", "source_type"]),
        "sensor": common.union([
            "device_class", "expire_after", "force_update", "last_reset_value_template", "options", "suggested_display_precision",
            "state_class", "unit_of_measurement",
        ]),
        "binary_sensor": common.union(["device_class", "expire_after", "force_update", "off_delay", "payload_on", "payload_off"]),
    ]
    static let deviceKeys: Set<String> = [
        "identifiers", "connections", "manufacturer", "model", "model_id", "name", "hw_version", "serial_number", "sw_version",
        "via_device", "suggested_area", "configuration_url",
    ]
    /// `MQTT_ATTRIBUTES_BLOCKED`, `entity.py` l. 139–158.
    static let blockedAttributes: Set<String> = [
        "available", "device_info", "entity_category", "entity_id", "entity_registry_enabled_default", "extra_state_attributes",
        "force_update", "should_poll", "state", "unique_id", "group_entities", "assumed_state", "device_class", "entity_picture",
        "friendly_name", "icon", "supported_features", "unit_of_measurement",
    ]

    /// What Home Assistant would refuse or drop in a device discovery payload (empty: nothing).
    static func violations(_ payload: [String: Any]) -> [String] {
        var found: [String] = []
        guard let device = payload["dev"] as? [String: Any] else { return ["dev: required"] }
        if (device["identifiers"] as? [String])?.isEmpty != false, (device["connections"] as? [[String]])?.isEmpty != false {
            found.append("dev: at least one identifier")
        }
        for (key, value) in device {
            if !deviceKeys.contains(key) { found.append("dev.\(key): unknown") }
            if key != "identifiers", key != "connections", !(value is String) { found.append("dev.\(key): a string") }
        }
        if let url = device["configuration_url"] as? String, !isConfigurationURL(url) { found.append("dev.configuration_url: \(url)") }
        guard let origin = payload["o"] as? [String: Any], origin["name"] is String else { return found + ["o.name: required"] }
        if let url = origin["url"] as? String, !isConfigurationURL(url) { found.append("o.url: \(url)") }
        if let qos = payload["qos"], !((qos as? Int).map { (0...2).contains($0) } ?? false) { found.append("qos: 0, 1 or 2") }
        guard let components = payload["cmps"] as? [String: [String: Any]], !components.isEmpty else { return found + ["cmps: required"] }
        var uniqueIDs: Set<String> = []
        for (id, component) in components {
            guard let platform = component["p"] as? String, platforms.contains(platform) else {
                found.append("cmps.\(id).p: a platform")
                continue
            }
            guard let unique = component["unique_id"] as? String else {
                found.append("cmps.\(id).unique_id: required")
                continue
            }
            if !uniqueIDs.insert(unique).inserted { found.append("cmps.\(id).unique_id: repeated") }
            for key in component.keys where !(options[platform] ?? []).contains(key) {
                found.append("cmps.\(id).\(key): not a \(platform) option")
            }
            for key in ["state_topic", "json_attributes_topic"] {
                if let topic = component[key], !isSubscribeTopic(topic) { found.append("cmps.\(id).\(key): a topic") }
            }
            for key in ["name", "value_template", "json_attributes_template", "unit_of_measurement", "icon"] {
                if let value = component[key], !(value is String) { found.append("cmps.\(id).\(key): a string") }
            }
            if let category = component["entity_category"] as? String, category != "diagnostic" {
                found.append("cmps.\(id).entity_category")
            }
            switch platform {
            case "device_tracker":
                if component["state_topic"] == nil, component["json_attributes_topic"] == nil {
                    found.append("cmps.\(id): state_topic or json_attributes_topic")
                }
                if let source = component["source_type"] as? String, !sourceTypes.contains(source) {
                    found.append("cmps.\(id).source_type")
                }
            case "sensor":
                if let stateClass = component["state_class"] as? String, !stateClasses.contains(stateClass) {
                    found.append("cmps.\(id).state_class")
                }
                if component["device_class"] as? String == "distance",
                    !["km", "m", "cm", "mm", "mi", "nmi", "yd", "in", "ft"].contains(component["unit_of_measurement"] as? String ?? "")
                {
                    found.append("cmps.\(id).unit_of_measurement: a distance unit")
                }
                if let precision = component["suggested_display_precision"], !((precision as? Int).map { $0 >= 0 } ?? false) {
                    found.append("cmps.\(id).suggested_display_precision")
                }
            default:
                if let deviceClass = component["device_class"], deviceClass as? String != "connectivity" {
                    found.append("cmps.\(id).device_class")
                }
            }
            if component["state_topic"] == nil, platform != "device_tracker" { found.append("cmps.\(id).state_topic: required") }
        }
        return found
    }

    /// `cv.configuration_url`: http, https or homeassistant, with a host, no whitespace.
    static func isConfigurationURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https", "homeassistant"].contains(scheme) else {
            return false
        }
        return !text.contains(where: \.isWhitespace) && (scheme == "homeassistant" || !(url.host ?? "").isEmpty)
    }

    /// `valid_subscribe_topic`: a non-empty UTF-8 string without NUL, at most 65535 bytes.
    static func isSubscribeTopic(_ value: Any) -> Bool {
        guard let topic = value as? String else { return false }
        return !topic.isEmpty && !topic.contains("\0") && topic.utf8.count <= 65535
    }

    /// The location name Home Assistant's MQTT tracker stores for `payload` on its state topic, with
    /// no `value_template` and the default payloads; `nil` for unknown (`payload_reset`) or an
    /// ignored (blank) payload.
    static func trackerLocation(payload: String) -> String? {
        if payload.allSatisfy(\.isWhitespace) { return nil }
        switch payload {
        case "home": return "home"
        case "not_home": return "not_home"
        case "None": return nil
        default: return payload
        }
    }

    /// The attributes Home Assistant's tracker keeps from `payload` on its attributes topic; `nil`
    /// when it would refuse them, or when they carry a GPS position (which would override the location).
    static func trackerAttributes(payload: [UInt8]) -> [String: Any]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return nil }
        if object["latitude"] != nil || object["longitude"] != nil || object["gps_accuracy"] != nil { return nil }
        return object.filter { !blockedAttributes.contains($0.key) }
    }

    /// The templates the bridge uses, rendered as Home Assistant's Jinja would on `payload`:
    /// `{{ value_json.KEY }}` (a JSON null renders `None`, an integral number without a point) and
    /// `{{ 'A' if value_json.KEY == 'B' else 'C' }}`. Any other template fails the test that asks.
    static func render(_ template: String, _ payload: [UInt8]) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return nil }
        let body = template.trimmingCharacters(in: .whitespaces)
        guard body.hasPrefix("{{"), body.hasSuffix("}}") else { return nil }
        let expression = body.dropFirst(2).dropLast(2).trimmingCharacters(in: .whitespaces)
        func python(_ value: Any?) -> String {
            switch value {
            case nil, is NSNull: return "None"
            case let number as NSNumber:
                let double = number.doubleValue
                return double == double.rounded() && !"\(number)".contains(".") ? String(Int(double)) : String(double)
            case let text as String: return text
            default: return "\(value!)"
            }
        }
        if expression.hasPrefix("value_json."), !expression.contains(" ") {
            return python(json[String(expression.dropFirst("value_json.".count))])
        }
        let parts = expression.split(separator: " ").map(String.init)
        if parts.count == 7, parts[1] == "if", parts[2].hasPrefix("value_json."), parts[3] == "==", parts[5] == "else" {
            let key = String(parts[2].dropFirst("value_json.".count))
            let unquote = { (text: String) in String(text.dropFirst().dropLast()) }
            return python(json[key]) == unquote(parts[4]) ? unquote(parts[0]) : unquote(parts[6])
        }
        return nil
    }
}
