public import Foundation
public import WireProtocol

/// What one member knows of the others: each one's last heartbeat and state.
///
/// Liveness is a heartbeat younger than the timeout, not the will alone: a NATS cluster publishes
/// no will when a node dies, so a dead member's retained `online` may stay. A retained status
/// (delivered on subscribing) counts from the time it says it was sent, so a stale one left by
/// a member that died long ago is not taken for a live member.
public struct MembershipView: Sendable {
    public struct Member: Sendable, Equatable {
        public var venue: String?
        public var heard: Date
        public var online: Bool
    }

    public private(set) var members: [String: Member] = [:]

    public init() {}

    /// Notes `status`, received at `heardAt` (`retained`: delivered as the topic's retained message).
    public mutating func note(_ status: CoordinatorMemberStatus, heardAt: Date, retained: Bool) {
        let heard = retained ? min(heardAt, status.time ?? .distantPast) : heardAt
        if let known = members[status.member], known.heard > heard { return }  // an old redelivery
        members[status.member] = Member(venue: status.venue, heard: heard, online: status.state == .online)
    }

    /// The members of `venue` live at `now` (online, heard within `timeout`), sorted.
    public func live(now: Date, timeout: TimeInterval, venue: String?) -> [String] {
        members.filter { $0.value.online && $0.value.venue == venue && now.timeIntervalSince($0.value.heard) <= timeout }.map(\.key)
            .sorted()
    }
}
