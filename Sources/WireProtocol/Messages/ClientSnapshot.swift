public import Foundation

/// A client as the coordinator's `/api/clients/{id}` shows it (docs/http.md), and as its readers
/// (the Home Assistant bridge) take it.
public struct ClientSnapshot: Codable, Sendable, Equatable {
    public var id: String
    public var version: UInt64
    public var regions: [String]
    public var inside: [String]
    public var position: Position?
    public var lastSeen: Date
    /// `phone` (it reports) or `tag` (only heard by gateways).
    public var kind: String
    public var present: Bool
    public var advertising: String?
    /// Whether iOS can wake the phone for region events, by its last report's `phone`: `yes`,
    /// `no` (located only while its app is open), `unknown` (never said; tags).
    public var wakeable: Wakeability
    /// What the phone last said about itself (back end, OS, authorization, …); absent until it says.
    public var phone: PhoneStatus?

    /// A snapshot with every field given.
    public init(
        id: String, version: UInt64, regions: [String], inside: [String], position: Position?, lastSeen: Date, kind: String,
        present: Bool, advertising: String?, wakeable: Wakeability = .unknown, phone: PhoneStatus? = nil
    ) {
        self.id = id
        self.version = version
        self.regions = regions
        self.inside = inside
        self.position = position
        self.lastSeen = lastSeen
        self.kind = kind
        self.present = present
        self.advertising = advertising
        self.wakeable = wakeable
        self.phone = phone
    }
}
