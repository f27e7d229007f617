/// Counts arrivals and whether iOS told the app about them, as IOS.md defines coverage: an
/// *arrival* is coming within a region's radius of its beacon; it is covered when the region was
/// monitored at some moment between the beacon's first detection on that approach (detections less
/// than ``exitDelay`` apart are one approach) and the arrival.
public struct ArrivalCoverage: Sendable {
    /// Seconds without a detection that end an approach (iOS's exit delay).
    public var exitDelay: Double
    /// Per region in an approach: whether it was monitored at some moment of it.
    private var approaches: [Int: Bool] = [:]
    /// When each beacon was last detected.
    private var lastHeard: [Int: Double] = [:]
    /// Regions whose radius the walker is within.
    private var within = Set<Int>()

    public init(exitDelay: Double = 30) {
        self.exitDelay = exitDelay
    }

    /// An arrival iOS did not tell the app about: the region, and whether its beacon was detected
    /// on this approach before it (it was in range, but not monitored at any moment since).
    public struct Missed: Sendable, Hashable {
        public var region: Int
        public var heard: Bool
    }

    /// One step at `now`: the beacons `detected`, the regions the walker is `withinNow`, and
    /// whether a region is `monitored` now; each new arrival goes to `tally` (unless `counting` is
    /// false: the start). Returns the arrivals of this step that were missed.
    @discardableResult
    public mutating func step(
        now: Double, detected: [Int], withinNow: Set<Int>, counting: Bool = true, tally: inout SimulationTally, id: (Int) -> String,
        monitored: (Int) -> Bool
    ) -> [Missed] {
        var missed: [Missed] = []
        for region in detected {
            lastHeard[region] = now
            if approaches[region] == nil { approaches[region] = false }
        }
        for (region, covered) in approaches {
            if !covered, monitored(region) { approaches[region] = true }
            if now - (lastHeard[region] ?? -.infinity) >= exitDelay { approaches[region] = nil }
        }
        if counting {
            for region in withinNow.subtracting(within).sorted() {
                let covered = approaches[region] ?? monitored(region)
                tally.recordEntry(region: id(region), monitored: covered)
                if !covered { missed.append(Missed(region: region, heard: approaches[region] != nil)) }
            }
        }
        within = withinNow
        return missed
    }
}
