import Foundation
import Testing

@testable import Planner
@testable import Topology

/// Room presence (`RoomFilter`): a walk recorded as estimates, through a door and through a wall.
@Suite struct RoomFilterTests {
    /// Three rooms in a row, 10 m each: A (x 0-10), B (x 10-20), C (x 20-30); a door between A and
    /// B at (10, 5), none between B and C (a wall at x = 20); a corridor D south of all three
    /// (y -4…0) with doors into A and C. Levels: ground L0 and L1 above A, stairs at (5, 8).
    static let files: [String: String] = [
        "venue.conf": "name = rooms\nuuid = 11111111-2222-3333-4444-555555555555\n",
        "levels.csv": "id,elevation\nL0,0\nL1,4\n",
        "regions.csv": "id,major,minor,x,y,level,radius\na,1,1,5,5,L0,1\nb,1,2,15,5,L0,1\nc,1,3,25,5,L0,1\nup,1,4,5,5,L1,1\n",
        "waypoints.csv":
            "id,x,y,level\nab,10,5,L0\nda,5,-2,L0\ndc,25,-2,L0\nad,5,0,L0\ncd,25,0,L0\nfoot,5,8,L0\ntop,5,8,L1\n",
        "links.csv":
            "from,to,distance,kind\na,ab,,door\nab,b,,door\na,ad,,door\nad,da,,door\nda,dc,,walk\ndc,cd,,door\ncd,c,,door\na,foot,,walk\nfoot,top,5,stairs\ntop,up,,walk\n",
        "areas.csv":
            "id,level,name,kind,polygon\nA,L0,Room A,room,0 0;10 0;10 10;0 10\nB,L0,Room B,room,10 0;20 0;20 10;10 10\nC,L0,Room C,room,20 0;30 0;30 10;20 10\nD,L0,Corridor,walkway,0 -4;30 -4;30 0;0 0\nU,L1,Upstairs,room,0 0;10 0;10 10;0 10\n",
    ]

    static func topology(_ conf: String = "") throws -> Topology {
        var files = files
        files["venue.conf"]! += conf
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("room-filter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return try Topology.load(directory: directory)
    }

    /// Runs estimates (one a second from t = 0) through a fresh filter; answers the room shown
    /// after each, by id, and the changes.
    static func walk(_ filter: RoomFilter, _ points: [(Double, Double, String)]) -> (shown: [String?], changes: Int) {
        var state = RoomPresence()
        var shown: [String?] = []
        var changes = 0
        for (t, point) in points.enumerated() {
            let level = filter.topology.levelIndex(id: point.2)!
            let change = filter.step(&state, x: point.0, y: point.1, level: level, time: Double(t))
            if change.roomChanged, change.fromRoom != nil { changes += 1 }
            shown.append(state.room.map { filter.topology.areas[$0].id })
        }
        return (shown, changes)
    }

    @Test("the room graph joins rooms through doors and stairs, not through walls")
    func graph() throws {
        let topology = try Self.topology()
        let index = { (id: String) in topology.areas.firstIndex { $0.id == id }! }
        let graph = topology.roomGraph
        #expect(graph.adjacent(index("A"), index("B")))
        #expect(!graph.adjacent(index("B"), index("C")), "a wall, no link crosses it")
        #expect(graph.adjacent(index("A"), index("U")))
        #expect(graph.path(from: index("B"), to: index("C")) == [index("B"), index("A"), index("D"), index("C")])
    }

    @Test("walking through the door into B: shown after the dwell, once")
    func throughADoor() throws {
        let filter = RoomFilter(topology: try Self.topology())
        // 5 s in A, then across the door and 10 s in the middle of B.
        let points = Array(repeating: (5.0, 5.0, "L0"), count: 5) + Array(repeating: (15.0, 5.0, "L0"), count: 10)
        let (shown, changes) = Self.walk(filter, points)
        #expect(shown.first == "A")
        #expect(shown.last == "B")
        #expect(changes == 1)
        // Shown 3 s (room-dwell) after the first estimate in B (t = 5), at t = 8.
        #expect(shown.firstIndex(of: "B") == 8, "\(shown)")
    }

    @Test("an estimate jumping through the wall from B into C is not shown; staying there long is, later")
    func throughAWall() throws {
        let filter = RoomFilter(topology: try Self.topology())
        // In B; the estimate jitters 0.6 m into C for 4 s, back for 2 s, into C for 4 s again.
        var points = Array(repeating: (15.0, 5.0, "L0"), count: 5)
        points += Array(repeating: (20.6, 5.0, "L0"), count: 4) + Array(repeating: (19.0, 5.0, "L0"), count: 2)
        points += Array(repeating: (20.6, 5.0, "L0"), count: 4)
        let jitter = Self.walk(filter, points)
        #expect(jitter.changes == 0, "\(jitter.shown)")
        #expect(jitter.shown.allSatisfy { $0 == "B" })
        // A door away (A → B) an estimate 0.3 m past the doorway is shown after twice the dwell
        // (within the margin of the wall): the graph, not the distance, makes the difference.
        var door = Array(repeating: (5.0, 5.0, "L0"), count: 5) + Array(repeating: (10.3, 5.0, "L0"), count: 8)
        #expect(Self.walk(filter, door).shown.last == "B")
        door = Array(repeating: (5.0, 5.0, "L0"), count: 5) + Array(repeating: (10.3, 5.0, "L0"), count: 5)
        #expect(Self.walk(filter, door).shown.last == "A", "within the margin: twice the dwell")
        // Through the wall for a long time: three doors' worth of dwell (B → A → D → C), 9 s.
        let long = Self.walk(filter, Array(repeating: (15.0, 5.0, "L0"), count: 3) + Array(repeating: (25.0, 5.0, "L0"), count: 12))
        #expect(long.shown.firstIndex(of: "C") == 3 + 9, "\(long.shown)")
    }

    @Test("a jitter back and forth across a door does not flap")
    func noFlapping() throws {
        let filter = RoomFilter(topology: try Self.topology())
        var points: [(Double, Double, String)] = Array(repeating: (5.0, 5.0, "L0"), count: 3)
        for i in 0..<60 { points.append(i % 3 == 0 ? (11.0, 5.0, "L0") : (9.0, 5.0, "L0")) }
        let (shown, changes) = Self.walk(filter, points)
        #expect(changes == 0, "\(shown)")
    }

    @Test("a level changes after the dwell near the stairs, later far from them; the room comes with it")
    func levels() throws {
        let filter = RoomFilter(topology: try Self.topology())
        let near = Self.walk(filter, Array(repeating: (5.0, 5.0, "L0"), count: 3) + Array(repeating: (5.0, 7.0, "L1"), count: 6))
        #expect(near.shown.firstIndex(of: "U") == 3 + 4, "level-dwell 4 s: \(near.shown)")
        let far = RoomFilter(topology: try Self.topology("level-reach = 1\n"))
        let farWalk = Self.walk(far, Array(repeating: (5.0, 5.0, "L0"), count: 3) + Array(repeating: (1.0, 1.0, "L1"), count: 14))
        #expect(farWalk.shown.firstIndex(of: "U") == 3 + 12, "three times the dwell: \(farWalk.shown)")
    }

    @Test("venue.conf tunes the dwell")
    func tuned() throws {
        let filter = RoomFilter(topology: try Self.topology("room-dwell = 6\nroom-margin = 0\n"))
        let points = Array(repeating: (5.0, 5.0, "L0"), count: 2) + Array(repeating: (10.2, 5.0, "L0"), count: 10)
        #expect(Self.walk(filter, points).shown.firstIndex(of: "B") == 2 + 6)
    }
}
