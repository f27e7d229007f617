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

    public init(id: String, kind: String, position: Position?, present: Bool, lastSeen: Int64, version: UInt64) {
        self.id = id
        self.kind = kind
        self.position = position
        self.present = present
        self.lastSeen = lastSeen
        self.version = version
    }

    /// Appends this marker as a JSON object:
    /// `{"id":…,"kind":…,"x":…,"y":…,"level":…,"confidence":…,"present":…,"lastSeen":…,"version":…}`
    /// (`x`, `y`, `level`, `confidence` null when unplaced).
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: "{\"id\":".utf8)
        JSONBytes.appendString(id, to: &out)
        out.append(contentsOf: ",\"kind\":".utf8)
        JSONBytes.appendString(kind, to: &out)
        if let position {
            out.append(contentsOf: ",\"x\":".utf8)
            JSONBytes.appendNumber(position.x, to: &out)
            out.append(contentsOf: ",\"y\":".utf8)
            JSONBytes.appendNumber(position.y, to: &out)
            out.append(contentsOf: ",\"level\":".utf8)
            JSONBytes.appendString(position.level, to: &out)
            out.append(contentsOf: ",\"confidence\":".utf8)
            if let confidence = position.confidence { JSONBytes.appendNumber(confidence, to: &out) } else { out.append(contentsOf: "null".utf8) }
        } else {
            out.append(contentsOf: ",\"x\":null,\"y\":null,\"level\":null,\"confidence\":null".utf8)
        }
        out.append(contentsOf: present ? ",\"present\":true,\"lastSeen\":".utf8 : ",\"present\":false,\"lastSeen\":".utf8)
        JSONBytes.appendInteger(lastSeen, to: &out)
        out.append(contentsOf: ",\"version\":".utf8)
        JSONBytes.appendUnsigned(version, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}

/// A gateway as the live map draws it: online or offline (by its retained status).
public struct GatewayMarker: Sendable, Equatable {
    public var id: String
    public var online: Bool

    public init(id: String, online: Bool) {
        self.id = id
        self.online = online
    }

    /// Appends `{"id":…,"online":…}`.
    public func appendJSON(to out: inout [UInt8]) {
        out.append(contentsOf: "{\"id\":".utf8)
        JSONBytes.appendString(id, to: &out)
        out.append(contentsOf: online ? ",\"online\":true}".utf8 : ",\"online\":false}".utf8)
    }
}
