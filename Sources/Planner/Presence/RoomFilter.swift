public import Topology

/// What room and floor presence shows for one client: the room and level it is in, by the
/// evidence so far, and how sure it is. Kept per client by the coordinator and changed only by
/// ``RoomFilter/step(_:x:y:level:time:)``.
public struct RoomPresence: Sendable, Hashable {
    /// The room shown (an index into ``Topology/Topology/areas``), -1 when none.
    public internal(set) var roomIndex: Int32 = -1
    /// The level shown (an index into ``Topology/Topology/levels``), -1 when none.
    public internal(set) var levelIndex: Int32 = -1
    /// How sure presence is of the room shown, 0…1: how much of the last few dwell times the
    /// estimate spent in it (a room just entered starts at one half).
    public internal(set) var confidence: Float = 0
    /// The room the estimate is in that is not the one shown, and the seconds of evidence for it.
    var candidateRoom: Int32 = -1
    var candidateEvidence: Float = 0
    /// The level the estimate is on that is not the one shown, and since when (seconds).
    var candidateLevel: Int32 = -1
    var candidateLevelSince: Double = 0
    /// The time of the last step, seconds.
    var lastTime: Double = -.infinity

    public init() {}

    /// The room shown, nil when none.
    public var room: Int? { roomIndex < 0 ? nil : Int(roomIndex) }
    /// The level shown, nil when none.
    public var level: Int? { levelIndex < 0 ? nil : Int(levelIndex) }

    /// Forgets what was shown (the client left): the next estimate is shown at once.
    public mutating func reset() { self = RoomPresence() }
}

/// What one ``RoomFilter/step(_:x:y:level:time:)`` changed: the room and level left and entered
/// (nil: none), when they changed.
public struct PresenceChange: Sendable, Hashable {
    public var roomChanged = false
    public var levelChanged = false
    public var fromRoom: Int?
    public var toRoom: Int?
    public var fromLevel: Int?
    public var toLevel: Int?

    public init() {}

    /// Whether anything changed.
    public var isEmpty: Bool { !roomChanged && !levelChanged }
}

/// Room and floor presence over a venue's room graph (``Topology/RoomGraph``): turns a client's
/// stream of position estimates into the room and level people are shown, without flapping.
///
/// - A client's first estimate is shown at once (its room, its level).
/// - **Rooms.** The estimate in another room of the shown level is evidence for that room: each
///   second there adds a second, each second back in the shown room takes one away (a jitter
///   across a wall and back cancels out), a third room starts over. The room is shown once the
///   evidence reaches ``Topology/PresenceTuning/roomDwell`` times the doors between the rooms
///   (the fewest passages of the graph, at most four; four when no link leads there at all), and
///   twice that while the estimate is within ``Topology/PresenceTuning/roomMargin`` of the new
///   room's walls (hysteresis: a client in a doorway stays where it was). So a room through a
///   door follows after one dwell, a room through a wall only after much longer evidence.
///   Outside every room the shown room stays.
/// - **Levels.** The estimate on another level is shown after ``Topology/PresenceTuning/levelDwell``
///   seconds there when it is within ``Topology/PresenceTuning/levelReach`` of the end of a
///   stair, escalator, lift or ramp link that joins the two levels, else after three times that;
///   meanwhile the room shown stays. A new level shows the estimate's room there at once (it was
///   reached through a link between levels, not through a wall).
///
/// Deterministic and allocation-free per step, so the coordinator runs it for every estimate.
public struct RoomFilter: Sendable {
    public let topology: Topology
    public let tuning: PresenceTuning
    /// Per room, per room: the passages between them (``RoomGraph/path(from:to:)``), capped at
    /// ``maximumDoors``; empty without rooms.
    let doors: [[UInt8]]
    /// Per level: per level, whether a link between levels joins them directly.
    let joined: [[Bool]]

    /// The most doors a change of room is charged for (a room no link reaches counts this many).
    public static let maximumDoors = 4

    public init(topology: Topology, tuning: PresenceTuning? = nil) {
        self.topology = topology
        self.tuning = tuning ?? topology.presenceTuning
        let graph = topology.roomGraph
        let count = topology.areas.count
        // Breadth first from every room, as far as the cap.
        doors = (0..<count).map { start in
            var hops = [UInt8](repeating: UInt8(RoomFilter.maximumDoors), count: count)
            hops[start] = 0
            var frontier = [start]
            var depth: UInt8 = 0
            while !frontier.isEmpty, Int(depth) < RoomFilter.maximumDoors - 1 {
                depth += 1
                var next: [Int] = []
                for room in frontier {
                    for passage in graph.passages[room] where hops[passage.room] > depth && passage.room != start {
                        hops[passage.room] = depth
                        next.append(passage.room)
                    }
                }
                frontier = next
            }
            return hops
        }
        let levels = topology.levels.count
        joined = (0..<levels).map { a in (0..<levels).map { b in graph.levelsJoined(a, b) } }
    }

    /// The seconds of evidence a change from room `from` to room `to` (with the estimate `inset`
    /// metres inside `to`) needs.
    public func dwell(from: Int, to: Int, inset: Double) -> Double {
        let doors = Double(max(1, Int(self.doors[from][to])))
        return tuning.roomDwell * doors * (inset >= tuning.roomMargin ? 1 : 2)
    }

    /// Folds one estimate of the client, (`x`, `y`) on level index `level` at `time` seconds (never
    /// earlier than the last), into `state`; answers what changed.
    @discardableResult
    public func step(_ state: inout RoomPresence, x: Double, y: Double, level: Int, time: Double) -> PresenceChange {
        var change = PresenceChange()
        let dt = state.lastTime.isFinite ? max(0, time - state.lastTime) : 0
        state.lastTime = time
        guard level >= 0, level < topology.levels.count else { return change }
        let levelID = topology.levels[level].id
        let here = topology.room(at: VenuePoint(x: x, y: y, level: levelID))
        // First estimate: shown at once.
        if state.levelIndex < 0 {
            state.levelIndex = Int32(level)
            change.levelChanged = true
            change.toLevel = level
            if let here {
                state.roomIndex = Int32(here)
                state.confidence = 0.5
                change.roomChanged = true
                change.toRoom = here
            }
            return change
        }
        let shownLevel = Int(state.levelIndex)
        if level != shownLevel {
            if state.candidateLevel != Int32(level) {
                state.candidateLevel = Int32(level)
                state.candidateLevelSince = time
            }
            let near =
                joined[shownLevel][level]
                && topology.roomGraph.distanceToConnector(x: x, y: y, level: level, toLevel: shownLevel) <= tuning.levelReach
            let needed = tuning.levelDwell * (near ? 1 : 3)
            decay(&state, dt: dt, towards: 0)
            guard time - state.candidateLevelSince >= needed else { return change }
            change.levelChanged = true
            change.fromLevel = shownLevel
            change.toLevel = level
            state.levelIndex = Int32(level)
            state.candidateLevel = -1
            state.candidateRoom = -1
            state.candidateEvidence = 0
            if state.room != here {
                change.roomChanged = true
                change.fromRoom = state.room
                change.toRoom = here
                state.roomIndex = Int32(here ?? -1)
            }
            state.confidence = here == nil ? 0 : 0.5
            return change
        }
        state.candidateLevel = -1
        guard let here else { return change }  // between rooms: the shown one stays
        guard let shown = state.room else {
            state.roomIndex = Int32(here)
            state.confidence = 0.5
            change.roomChanged = true
            change.toRoom = here
            return change
        }
        if here == shown {
            decay(&state, dt: dt, towards: 1)
            if state.candidateRoom >= 0 {
                state.candidateEvidence -= Float(dt)
                if state.candidateEvidence <= 0 {
                    state.candidateRoom = -1
                    state.candidateEvidence = 0
                }
            }
            return change
        }
        decay(&state, dt: dt, towards: 0)
        if state.candidateRoom != Int32(here) {
            state.candidateRoom = Int32(here)
            state.candidateEvidence = 0
        } else {
            state.candidateEvidence += Float(dt)
        }
        let inset = topology.areas[here].polygon.distanceToBoundary(x: x, y: y)
        guard Double(state.candidateEvidence) >= dwell(from: shown, to: here, inset: inset) else { return change }
        change.roomChanged = true
        change.fromRoom = shown
        change.toRoom = here
        state.roomIndex = Int32(here)
        state.candidateRoom = -1
        state.candidateEvidence = 0
        state.confidence = 0.5
        return change
    }

    /// Moves the confidence towards `target` over about one room dwell.
    private func decay(_ state: inout RoomPresence, dt: Double, towards target: Float) {
        guard state.roomIndex >= 0, dt > 0 else { return }
        let rate = Float(min(1, dt / max(tuning.roomDwell, 1)))
        state.confidence += (target - state.confidence) * rate
    }
}
