/// How a venue tunes room and floor presence (the coordinator's room filter, `RoomFilter` in
/// `Planner`): `venue.conf`'s `room-dwell`, `room-margin`, `level-dwell`, `level-reach` and
/// `presence-offset-gain`. A value the venue does not set keeps the default here.
public struct PresenceTuning: Sendable, Hashable {
    /// Seconds the estimate must stay in a neighbouring room (one door away) before it is shown
    /// (`room-dwell`, 0…120). A room more doors away needs this much per door (at most four); a
    /// room no link leads to, four times this.
    public var roomDwell: Double = 3
    /// Metres the estimate must be inside the new room, away from its walls, for the change to
    /// count after ``roomDwell`` (`room-margin`, 0…10); an estimate hugging the wall needs twice
    /// the dwell. The hysteresis that keeps a client standing in a doorway in one room.
    public var roomMargin: Double = 0.5
    /// Seconds the estimate must stay on another level before it is shown (`level-dwell`, 0…300),
    /// when it is within ``levelReach`` of a stair, escalator, lift or ramp that joins the two
    /// levels; elsewhere three times this.
    public var levelDwell: Double = 4
    /// Metres from the end of a link between the levels within which a change of level is
    /// plausible at ``levelDwell`` (`level-reach`, 0…100).
    public var levelReach: Double = 10
    /// How fast the estimate presence goes by learns each client's own radio offset, a share of its
    /// mean residual per update (`presence-offset-gain`, 0…1; 0: presence goes by the planning
    /// estimate). A phone's receiver reads a few dB hot or cold for every beacon and a tag
    /// transmits above or below the venue's power; learned, the room shown follows the client
    /// closer. Costs a second estimate per update.
    public var offsetGain: Double = 0.05

    public static let roomDwellRange = 0.0...120.0
    public static let roomMarginRange = 0.0...10.0
    public static let levelDwellRange = 0.0...300.0
    public static let levelReachRange = 0.0...100.0
    public static let offsetGainRange = 0.0...1.0
}
