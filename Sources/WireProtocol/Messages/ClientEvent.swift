public import Foundation

/// `P/v1/clients/{id}/events` (QoS 1): what happened to a client, for subscribers.
public struct ClientEvent: VersionedPayload, Equatable {
    public enum Kind: String, Codable, Sendable { case enter, exit, moved }
    public var v: Int = 1
    public var client: String
    public var type: Kind
    /// The region entered or left (absent for `moved`).
    public var region: String?
    public var position: Position?
    public var time: Date
    /// What the decision rests on: `report`, `sightings`, `absence`, `estimate`.
    public var evidence: String?

    public init(client: String, type: Kind, region: String? = nil, position: Position? = nil, time: Date, evidence: String? = nil) {
        self.client = client
        self.type = type
        self.region = region
        self.position = position
        self.time = time
        self.evidence = evidence
    }
}
