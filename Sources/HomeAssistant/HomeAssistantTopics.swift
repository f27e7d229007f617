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

    /// The coordinator's device id: `<BeaconFleet prefix>_coordinator`, made legal.
    public var coordinatorObjectID: HomeAssistantObjectID { HomeAssistantObjectID(joining: [topics.prefix, "coordinator"]) }

    /// A client's place, beside its config: `<prefix>/device/<object id>/location` (retained; the
    /// payload is the place's name itself, ``HomeAssistantClientState/location``). Home Assistant
    /// subscribes to `…/config` only, and to this through the config.
    public func location(_ device: HomeAssistantObjectID) -> String { "\(prefix)/device/\(device)/location" }

    /// A client's attributes (retained JSON, ``HomeAssistantClientState/Attributes``):
    /// `<prefix>/device/<object id>/attributes`.
    public func attributes(_ device: HomeAssistantObjectID) -> String { "\(prefix)/device/\(device)/attributes" }

    /// Where earlier versions kept a client's whole state as one JSON message (its `state` read
    /// through a template, which Home Assistant's tracker ignores): cleared when a client is announced.
    public func legacyState(_ device: HomeAssistantObjectID) -> String { "\(prefix)/device/\(device)/state" }
}
