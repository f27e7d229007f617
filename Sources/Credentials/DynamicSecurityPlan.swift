import Foundation
public import WireProtocol

/// The commands that give a venue's broker per-phone credentials with mosquitto's dynamic
/// security plugin (`mosquitto_dynamic_security.so`), as JSON objects for its control topic
/// `$CONTROL/dynamic-security/v1` (see docs/credentials.md).
///
/// Roles, with the topic patterns of docs/wire.md under the prefix `P`:
/// - `beaconfleet-coordinator`: reads every gateway's status and sightings and every client's
///   report; writes every client's `regions` (retained) and `events`, and its own status;
/// - `beaconfleet-agent`: writes gateways' status and sightings;
/// - `beaconfleet-phone-{id}`, one per phone: writes `P/v1/clients/{id}/report` and subscribes to
///   `P/v1/clients/{id}/regions` and `…/events`, nothing else (the plugin denies publishing and
///   subscribing by default).
///
/// A phone's username is its client id, so `{id}` in its topics is what it logs in as.
public struct DynamicSecurityPlan: Sendable {
    /// One command of the plugin's API.
    public typealias Command = [String: any Sendable]

    /// The topics the roles are written for.
    public let topics: Topics

    /// The role every coordinator account has.
    public static let coordinatorRole = "beaconfleet-coordinator"
    /// The role every agent account has.
    public static let agentRole = "beaconfleet-agent"
    /// The plugin's request and response topics.
    public static let requestTopic = "$CONTROL/dynamic-security/v1"
    public static let responseTopic = "$CONTROL/dynamic-security/v1/response"

    public init(topics: Topics) {
        self.topics = topics
    }

    /// The role of phone `id`.
    public static func phoneRole(_ id: Identifier) -> String { "beaconfleet-phone-\(id)" }

    private static func acl(_ type: String, _ topic: String, allow: Bool = true) -> [String: any Sendable] {
        ["acltype": type, "topic": topic, "priority": 0, "allow": allow]
    }

    /// Creates the coordinator's and the agents' roles.
    public func roles() -> [Command] {
        let coordinator: [[String: any Sendable]] =
            [
                topics.allGatewayStatus, topics.allSightings, topics.allClientReports, topics.allClientRegions, topics.coordinatorStatus,
                topics.allCoordinatorMembers,
            ].map { Self.acl("subscribePattern", $0) }
            // Client reports too: a partitioned member relays a report another member may have missed (HeldReports).
            + [
                topics.allClientRegions, topics.allClientEvents, topics.coordinatorStatus, topics.allClientReports,
                topics.allCoordinatorMembers,
            ]
            .map {
                Self.acl("publishClientSend", $0)
            }
        let agent: [[String: any Sendable]] = [topics.allGatewayStatus, topics.allSightings].map { Self.acl("publishClientSend", $0) }
        return [
            ["command": "createRole", "rolename": Self.coordinatorRole, "acls": coordinator],
            ["command": "createRole", "rolename": Self.agentRole, "acls": agent],
        ]
    }

    /// Creates an account `username` with `password` and `role` (a coordinator's or an agent's).
    public func account(_ username: String, password: String, role: String) -> [Command] {
        [["command": "createClient", "username": username, "password": password, "roles": [["rolename": role]]]]
    }

    /// Creates phone `id`'s role and its account (username `id`, `password`).
    public func addPhone(_ id: Identifier, password: String) -> [Command] {
        let role = Self.phoneRole(id)
        return [
            [
                "command": "createRole", "rolename": role,
                "acls": [
                    Self.acl("publishClientSend", topics.clientReport(id)),
                    Self.acl("subscribeLiteral", topics.clientRegions(id)),
                    Self.acl("subscribeLiteral", topics.clientEvents(id)),
                ],
            ],
            ["command": "createClient", "username": id.rawValue, "password": password, "roles": [["rolename": role]]],
        ]
    }

    /// Deletes phone `id`'s account and role (a connected phone is disconnected by the plugin).
    public func removePhone(_ id: Identifier) -> [Command] {
        [["command": "deleteClient", "username": id.rawValue], ["command": "deleteRole", "rolename": Self.phoneRole(id)]]
    }

    /// The request payload for `commands`.
    public static func request(_ commands: [Command]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: ["commands": commands], options: [.sortedKeys]))
    }

    /// The errors in a response payload, `command: error` each (empty when every command succeeded).
    public static func errors(inResponse payload: [UInt8]) -> [String]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
            let responses = object["responses"] as? [[String: Any]]
        else { return nil }
        return responses.compactMap { response in
            (response["error"] as? String).map { "\(response["command"] as? String ?? "?"): \($0)" }
        }
    }

    /// A random password: 24 characters from 62 (about 143 bits).
    public static func randomPassword() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<24).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
