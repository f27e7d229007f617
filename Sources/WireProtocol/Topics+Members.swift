/// Partitioned coordinators' membership topics: `P/v1/coordinators/{member}/status`.
extension Topics {
    /// The retained status (and will) of coordinator `member`.
    public func coordinatorMember(_ member: Identifier) -> String { "\(prefix)/v1/coordinators/\(Self.level(member))/status" }

    /// Every member's status.
    public var allCoordinatorMembers: String { "\(prefix)/v1/coordinators/+/status" }

    /// The member id in a member status topic; `nil` for any other topic.
    public func coordinatorMember(in topic: String) -> Identifier? {
        guard case .coordinatorMember(let member)? = try? route(topic) else { return nil }
        return member
    }

    /// Whether `id` may name a coordinator member: an ``Identifier`` without `.` (NATS maps `/` to
    /// `.` and disconnects a publisher whose topic holds one; a member id is never rewritten).
    public static func isValidMember(_ id: String) -> Bool { Identifier.isValid(id) && !id.contains(".") }
}
