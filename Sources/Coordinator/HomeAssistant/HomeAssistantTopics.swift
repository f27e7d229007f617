public import WireProtocol

/// The topics the Home Assistant bridge uses: Home Assistant's own (discovery configs under its
/// prefix, its `status`), the client states it publishes beside the configs, and the
/// BeaconFleet topics the configs point at.
public struct HomeAssistantTopics: Sendable {
    /// Home Assistant's discovery prefix.
    public let prefix: String
    /// The BeaconFleet topics (availability and gateway states come from them).
    public let topics: Topics

    public init(prefix: String, topics: Topics) {
        self.prefix = prefix
        self.topics = topics
    }

    /// Where Home Assistant announces itself (`online` when it starts; its last will says `offline`).
    public var status: String { "\(prefix)/status" }

    /// A client's device id: `<BeaconFleet prefix>_client_<id>`, made legal.
    public func clientObjectID(_ client: String) -> HomeAssistantObjectID {
        HomeAssistantObjectID(joining: [topics.prefix, "client", client])
    }

    /// A gateway's device id: `<BeaconFleet prefix>_gateway_<id>`, made legal.
    public func gatewayObjectID(_ gateway: String) -> HomeAssistantObjectID {
        HomeAssistantObjectID(joining: [topics.prefix, "gateway", gateway])
    }

    /// The device-based discovery topic: `<prefix>/device/<object id>/config` (retained).
    public func config(_ device: HomeAssistantObjectID) -> String { "\(prefix)/device/\(device)/config" }

    /// A client's state (retained JSON, see ``HomeAssistantClientState``), beside its config:
    /// `<prefix>/device/<object id>/state`. Home Assistant subscribes to `…/config` only.
    public func state(_ device: HomeAssistantObjectID) -> String { "\(prefix)/device/\(device)/state" }
}
