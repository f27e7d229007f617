public import Topology

/// A person walking the venue along its graph: to a random region, a pause there, then to another,
/// at a walking speed drawn per leg. Positions between nodes are interpolated along the link; on a
/// link between levels the walker stays at its start (see ``climb``) until it arrives. Deterministic
/// for its seed.
///
/// Also scripted: ``init(graph:route:speed:)`` walks a fixed list of nodes once, then stands still.
public struct Walker: Sendable {
    public let graph: WalkGraph
    /// Where it is now.
    public private(set) var position: VenuePoint
    /// The levels it can hear as its own: its level, and on a link between levels (stairs, lift)
    /// both ends' levels — what makes a per-level wildcard region fire while climbing.
    public private(set) var levels: Set<String> = []
    /// On a link between levels (stairs, lift): the level it is going to and how far along it is
    /// (0…1). The position stays at the link's start until it arrives; radio models can raise the
    /// walker by this fraction of the height between the levels.
    public private(set) var climb: (level: String, fraction: Double)? = nil
    /// Metres walked so far (along links, as the planner measures walking).
    public private(set) var distanceWalked: Double = 0
    /// Walking speed range, m/s.
    public var speedRange: ClosedRange<Double>
    /// Pause at each destination, seconds.
    public var pauseRange: ClosedRange<Double>

    private var generator: SplitMix64
    private var path: [Int]
    private var leg: Int = 0  // path[leg] → path[leg + 1]
    private var along: Double = 0  // metres walked on the current link
    private var speed: Double
    private var pause: Double = 0
    private let scripted: Bool

    /// A random walker starting at a random region.
    /// The random walker of `client` in a simulation seeded with `seed`: every simulation gives
    /// client N the same walk for the same seed.
    public init(graph: WalkGraph, simulationSeed seed: UInt64, client: Int, pauseRange: ClosedRange<Double> = Walker.defaultPauses) {
        self.init(graph: graph, seed: SplitMix64.mix(seed &+ 0x51_7CC1_B727_220A &* UInt64(client + 1)), pauseRange: pauseRange)
    }

    /// Seconds a walker stays at each region it reaches, drawn uniformly: a passer-by's stops.
    public static let defaultPauses: ClosedRange<Double> = 0...20

    public init(
        graph: WalkGraph, seed: UInt64, speedRange: ClosedRange<Double> = 1.0...1.5, pauseRange: ClosedRange<Double> = defaultPauses
    ) {
        self.graph = graph
        self.speedRange = speedRange
        self.pauseRange = pauseRange
        self.generator = SplitMix64(seed: seed)
        let start = graph.regionNodes[Int(generator.next() % UInt64(graph.regionNodes.count))]
        self.position = graph.nodes[start].point
        self.levels = [graph.nodes[start].point.level]
        self.path = [start]
        self.speed = speedRange.lowerBound
        self.scripted = false
        planNextLeg()
    }

    /// A scripted walker: walks `route` (node ids, each adjacent to the next) at `speed`, then stops.
    public init(graph: WalkGraph, route: [String], speed: Double) throws(SimulationError) {
        var nodes: [Int] = []
        for id in route {
            guard let node = graph.node(id: id) else { throw .invalidParameter(name: "route", reason: "no node '\(id)'") }
            if let last = nodes.last, graph.linkDistance(last, node) == nil {
                throw .invalidParameter(name: "route", reason: "'\(graph.nodes[last].id)' and '\(id)' are not linked")
            }
            nodes.append(node)
        }
        guard let first = nodes.first, speed > 0 else {
            throw .invalidParameter(name: "route", reason: "needs at least one node and a positive speed")
        }
        self.graph = graph
        self.speedRange = speed...speed
        self.pauseRange = 0...0
        self.generator = SplitMix64(seed: 0)
        self.position = graph.nodes[first].point
        self.levels = [graph.nodes[first].point.level]
        self.path = nodes
        self.speed = speed
        self.scripted = true
    }

    /// Moves on by `seconds` of time.
    public mutating func advance(by seconds: Double) {
        var remaining = seconds
        while remaining > 1e-12 {
            if pause > 0 {
                let waited = min(pause, remaining)
                pause -= waited
                remaining -= waited
                continue
            }
            guard leg + 1 < path.count else {
                if scripted { return }
                planNextLeg()
                continue
            }
            let from = path[leg]
            let to = path[leg + 1]
            let length = graph.linkDistance(from, to) ?? 0
            let step = min(length - along, remaining * speed)
            along += step
            distanceWalked += step
            remaining -= step / speed
            if along >= length - 1e-9 {
                leg += 1
                along = 0
                if leg + 1 >= path.count, !scripted {
                    pause = Double.random(in: pauseRange, using: &generator)
                }
            }
            updatePosition()
            if step <= 0 && length <= 0 { continue }
        }
    }

    private mutating func updatePosition() {
        guard leg + 1 < path.count else {
            position = graph.nodes[path[leg]].point
            levels = [position.level]
            climb = nil
            return
        }
        let a = graph.nodes[path[leg]].point
        let b = graph.nodes[path[leg + 1]].point
        let length = graph.linkDistance(path[leg], path[leg + 1]) ?? 0
        let t = length > 0 ? along / length : 1
        if a.level != b.level {
            // In the stairwell or the lift: on neither floor's graph until it arrives.
            position = a
            levels = along > 0 ? [a.level, b.level] : [a.level]
            climb = along > 0 ? (b.level, t) : nil
            return
        }
        position = VenuePoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, level: a.level)
        levels = [a.level]
        climb = nil
    }

    private mutating func planNextLeg() {
        let here = path[min(leg, path.count - 1)]
        for _ in 0..<8 {
            let goal = graph.regionNodes[Int(generator.next() % UInt64(graph.regionNodes.count))]
            guard goal != here, let route = graph.shortestPath(from: here, to: goal) else { continue }
            path = route
            leg = 0
            along = 0
            speed = Double.random(in: speedRange, using: &generator)
            return
        }
        // Nowhere to go (a tiny or disconnected venue): wait a little.
        path = [here]
        leg = 0
        pause = max(pauseRange.upperBound, 1)
    }
}
