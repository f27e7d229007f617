import BeaconKit
public import Foundation
import Planner
import Topology
public import WireProtocol

/// A client as `/api/clients/{id}` shows it.
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
    public var wakeable: Wakeability = .unknown
    /// What the phone last said about itself (back end, OS, authorization, …); absent until it says.
    public var phone: PhoneStatus?
}
