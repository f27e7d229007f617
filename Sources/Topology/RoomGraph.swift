/// The venue's rooms (``Area``) as a graph: which rooms a person can walk between directly, and
/// where the levels meet.
///
/// Two rooms are neighbours when a link of `links.csv` passes from one into the other: a `door`
/// link through its doorway, any other link where it crosses an opening (each link is followed
/// every 25 cm, and each change of room along it is a passage), or a `stairs`, `escalator`,
/// `lift` or `ramp` link between the room of one end and the room of the other. A wall no link
/// crosses is a wall: the rooms on either side are not neighbours however close they are.
///
/// Room presence (`RoomFilter` in `Planner`) walks this graph: a client changes rooms only to a
/// neighbour, and levels only where a link between levels starts.
public struct RoomGraph: Sendable {
    /// A way out of a room.
    public struct Passage: Sendable, Hashable {
        /// The room it leads to (an index into ``Topology/areas``).
        public var room: Int
        /// Whether it leads to another level (stairs, an escalator, a lift, a ramp).
        public var changesLevel: Bool
    }

    /// One end of a link between levels: where a person can leave its level, and where the link
    /// lands.
    public struct Connector: Sendable, Hashable {
        /// The level index of this end (into ``Topology/levels``) and the level the link leads to.
        public var level: Int
        public var toLevel: Int
        public var x: Double
        public var y: Double
        /// The other end, on `toLevel`.
        public var toX: Double
        public var toY: Double
        /// The link's walking distance (`links.csv`), metres.
        public var length: Double

        /// A connector; the other end defaults to the same point, the length to 0.
        public init(level: Int, toLevel: Int, x: Double, y: Double, toX: Double? = nil, toY: Double? = nil, length: Double = 0) {
            self.level = level
            self.toLevel = toLevel
            self.x = x
            self.y = y
            self.toX = toX ?? x
            self.toY = toY ?? y
            self.length = length
        }
    }

    /// Per room: its passages, by room index, without repeats.
    public let passages: [[Passage]]
    /// Every end of every link between levels, by level.
    public let connectors: [Connector]
    /// Per level index: the range of ``connectors`` on it.
    private let connectorsByLevel: [Range<Int>]

    /// How finely a link is followed to find the rooms it passes through, metres.
    static let step = 0.25

    /// A graph from explicit passages (tests, venues built in code); the empty graph by default.
    public init(passages: [[Passage]] = [], connectors: [Connector] = []) {
        self.passages = passages
        let connectors = connectors.enumerated().sorted { ($0.element.level, $0.offset) < ($1.element.level, $1.offset) }.map(\.element)
        var byLevel = [Range<Int>](repeating: 0..<0, count: (connectors.last?.level ?? -1) + 1)
        var start = 0
        for (index, connector) in connectors.enumerated()
        where index + 1 == connectors.count || connectors[index + 1].level != connector.level {
            if connector.level >= 0 { byLevel[connector.level] = start..<(index + 1) }
            start = index + 1
        }
        self.connectors = connectors
        connectorsByLevel = byLevel
    }

    /// The connectors on level `level` (an index into ``Topology/levels``).
    public func connectors(on level: Int) -> ArraySlice<Connector> {
        level >= 0 && level < connectorsByLevel.count ? connectors[connectorsByLevel[level]] : []
    }

    /// The graph of a venue's rooms from its walkable links.
    init(graph: WalkingGraph, rooms: RoomIndex, levels: [Level]) {
        var connectors: [Connector] = []
        var pairs: [Int: [Int: Bool]] = [:]
        func connect(_ a: Int, _ b: Int, changesLevel: Bool) {
            guard a != b else { return }
            pairs[a, default: [:]][b] = changesLevel || pairs[a]?[b] == true
            pairs[b, default: [:]][a] = changesLevel || pairs[b]?[a] == true
        }
        for a in 0..<graph.nodeCount {
            for edge in Int(graph.offsets[a])..<Int(graph.offsets[a + 1]) {
                let b = Int(graph.targets[edge])
                guard a < b else { continue }  // each undirected link once
                let (levelA, levelB) = (Int(graph.level[a]), Int(graph.level[b]))
                if levelA != levelB {
                    let length = graph.weights[edge]
                    connectors.append(
                        Connector(
                            level: levelA, toLevel: levelB, x: graph.x[a], y: graph.y[a], toX: graph.x[b], toY: graph.y[b], length: length))
                    connectors.append(
                        Connector(
                            level: levelB, toLevel: levelA, x: graph.x[b], y: graph.y[b], toX: graph.x[a], toY: graph.y[a], length: length))
                    if let roomA = rooms.room(x: graph.x[a], y: graph.y[a], level: levels[levelA].id),
                        let roomB = rooms.room(x: graph.x[b], y: graph.y[b], level: levels[levelB].id)
                    {
                        connect(roomA, roomB, changesLevel: true)
                    }
                    continue
                }
                guard !rooms.areas.isEmpty else { continue }
                let level = levels[levelA].id
                let (dx, dy) = (graph.x[b] - graph.x[a], graph.y[b] - graph.y[a])
                let steps = max(1, Int(((dx * dx + dy * dy).squareRoot() / Self.step).rounded(.up)))
                var previous: Int?
                for i in 0...steps {
                    let t = Double(i) / Double(steps)
                    guard let room = rooms.room(x: graph.x[a] + t * dx, y: graph.y[a] + t * dy, level: level) else { continue }
                    if let previous, previous != room { connect(previous, room, changesLevel: false) }
                    previous = room
                }
            }
        }
        self.init(
            passages: rooms.areas.indices.map { room in
                (pairs[room] ?? [:]).map { Passage(room: $0.key, changesLevel: $0.value) }.sorted { $0.room < $1.room }
            }, connectors: connectors)
    }

    /// Whether the two rooms are neighbours (a passage joins them).
    public func adjacent(_ a: Int, _ b: Int) -> Bool {
        guard a >= 0, a < passages.count else { return false }
        return passages[a].contains { $0.room == b }
    }

    /// The rooms of the fewest passages from `start` to `goal`, both included; nil when no way
    /// leads there. Breadth first, lower room indices first: the same answer every time.
    public func path(from start: Int, to goal: Int) -> [Int]? {
        guard start >= 0, goal >= 0, start < passages.count, goal < passages.count else { return nil }
        if start == goal { return [start] }
        var previous = [Int](repeating: -1, count: passages.count)
        previous[start] = start
        var queue = [start]
        var head = 0
        while head < queue.count {
            let room = queue[head]
            head += 1
            for passage in passages[room] where previous[passage.room] < 0 {
                previous[passage.room] = room
                if passage.room == goal {
                    var path = [goal]
                    var at = room
                    while at != start {
                        path.append(at)
                        at = previous[at]
                    }
                    path.append(start)
                    return path.reversed()
                }
                queue.append(passage.room)
            }
        }
        return nil
    }

    /// The straight-line distance on level `level` from (x, y) to the nearest connector end that
    /// leads to `toLevel` (to any level when nil); infinity when there is none.
    public func distanceToConnector(x: Double, y: Double, level: Int, toLevel: Int? = nil) -> Double {
        var best = Double.infinity
        for connector in connectors where connector.level == level && (toLevel == nil || connector.toLevel == toLevel) {
            best = min(best, ((connector.x - x) * (connector.x - x) + (connector.y - y) * (connector.y - y)).squareRoot())
        }
        return best
    }

    /// Whether a link between levels joins level `a` to level `b` directly.
    public func levelsJoined(_ a: Int, _ b: Int) -> Bool {
        connectors.contains { $0.level == a && $0.toLevel == b }
    }
}
