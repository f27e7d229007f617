public import Foundation

/// `P/v1/clients/{id}/events` (QoS 1): what happened to a client, for subscribers.
///
/// An `enter` or `exit` names exactly one of `region` (a beacon region), `room` (a room of the
/// venue's `areas.csv`, as room presence shows it) or `level` (the floor presence shows).
public struct ClientEvent: VersionedPayload, Equatable {
    public enum Kind: String, Codable, Sendable { case enter, exit, moved }
    public var v: Int = 1
    public var client: String
    public var type: Kind
    /// The region entered or left.
    public var region: String?
    /// The room entered or left (its id in `areas.csv`).
    public var room: String?
    /// The level entered or left (its id in `levels.csv`).
    public var level: String?
    /// For a room or level entered: how sure presence is of it now, 0…1.
    public var confidence: Double?
    public var position: Position?
    public var time: Date
    /// What the decision rests on: `report`, `sightings`, `presence`, `absence`.
    public var evidence: String?

    public init(
        client: String, type: Kind, region: String? = nil, room: String? = nil, level: String? = nil, confidence: Double? = nil,
        position: Position? = nil, time: Date, evidence: String? = nil
    ) {
        self.client = client
        self.type = type
        self.region = region
        self.room = room
        self.level = level
        self.confidence = confidence
        self.position = position
        self.time = time
        self.evidence = evidence
    }
}
