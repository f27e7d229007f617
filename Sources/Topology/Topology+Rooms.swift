/// Rooms (``Area``): which room a point, a region or a gateway is in, and whether a client is in
/// a region's room.
extension Topology {
    /// The index into ``areas`` of the room containing the point (the smallest when rooms nest);
    /// nil when the venue has no rooms or the point is in none.
    public func room(at point: VenuePoint) -> Int? { roomIndex.room(at: point) }

    /// The room a position is in, by name to show (``Area/displayName``).
    public func roomName(at point: VenuePoint) -> String? { room(at: point).map { areas[$0].displayName } }

    /// Whether walls allow a client at `point` to be inside region `index`: true when the region's
    /// beacon is in no room (or the venue has none), else only when the point is in the same room.
    public func sharesRoom(_ point: VenuePoint, region index: Int) -> Bool {
        guard let room = regionRooms[index] else { return true }
        return self.room(at: point) == room
    }
}
