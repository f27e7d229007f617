public import WireProtocol

/// A client as the live map draws it: where it is and how fresh that is, without its monitored
/// set (the map fetches ``ClientSnapshot`` for the one client selected). Small on purpose: the
/// stream carries one per client per update.
public struct ClientMarker: Sendable, Equatable {
    public var id: String
    /// `phone` (it reports) or `tag` (only heard by gateways).
    public var kind: String
    /// The estimate; `nil`: not placed yet (the map lists it, never draws it at 0,0).
    public var position: Position?
    public var present: Bool
    /// Milliseconds since 1970 of the client's last evidence (a phone's last report or wake).
    public var lastSeen: Int64
    /// The last published `regions` version (0: none yet).
    public var version: UInt64
    /// Whether iOS can wake the phone (``ClientSnapshot/wakeable``); the map marks the ones it cannot.
    public var wakeable: Wakeability

    /// A marker with every field given.
    public init(
        id: String, kind: String, position: Position?, present: Bool, lastSeen: Int64, version: UInt64, wakeable: Wakeability = .unknown
    ) {
        self.id = id
        self.kind = kind
        self.position = position
        self.present = present
        self.lastSeen = lastSeen
        self.version = version
        self.wakeable = wakeable
    }
}

/// A marker in the map's stream: `{"confidence", "id", "kind", "lastSeen", "level", "present",
/// "version", "wakeable", "x", "y"}`, with `x`, `y`, `level` and `confidence` null when unplaced and
/// `wakeable` `yes`, `no` or `unknown`.
extension ClientMarker: Encodable {
    private enum CodingKeys: String, CodingKey {
        case id, kind, x, y, level, confidence, present, lastSeen, version, wakeable
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        // Explicit nulls: the page tells an unplaced client by them.
        try container.encode(position?.x, forKey: .x)
        try container.encode(position?.y, forKey: .y)
        try container.encode(position?.level, forKey: .level)
        try container.encode(position?.confidence, forKey: .confidence)
        try container.encode(present, forKey: .present)
        try container.encode(lastSeen, forKey: .lastSeen)
        try container.encode(version, forKey: .version)
        try container.encode(wakeable.rawValue, forKey: .wakeable)
    }
}

/// A gateway as the live map draws it: online or offline (by its retained status); `{"id", "online"}` in the stream.
public struct GatewayMarker: Encodable, Sendable, Equatable {
    public var id: String
    public var online: Bool

    /// A gateway's marker.
    public init(id: String, online: Bool) {
        self.id = id
        self.online = online
    }
}

/// Everything the map draws at once: every client, every gateway, the venue's name and revision.
/// Its encoding is the data of the live map stream's `snapshot` event (``MapStreamEvent``).
public struct MapSnapshot: Sendable, Encodable {
    public var clients: [ClientMarker]
    public var gateways: [GatewayMarker]
    public var topology: CoordinatorStatus.TopologyInfo
    /// Milliseconds since 1970.
    public var time: Int64

    /// A snapshot with every field given.
    public init(clients: [ClientMarker], gateways: [GatewayMarker], topology: CoordinatorStatus.TopologyInfo, time: Int64) {
        self.clients = clients
        self.gateways = gateways
        self.topology = topology
        self.time = time
    }
}
