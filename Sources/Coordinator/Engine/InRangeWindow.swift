/// How recently a phone's iOS must have detected a beacon for a region added now to start
/// *inside* (no enter, only its `requestState` answer), as that phone's own reports show it.
///
/// IOS.md leaves it undocumented ("a region added while its beacon is already in range fires no
/// enter"); real phones were seen to take up to 30 s. It matters to the planner: a region whose
/// beacon the phone ranged within the window cannot wake it, so it is no trip wire. The window
/// starts at the longest plausible (``assumed``) and narrows as the phone shows it. Every region a
/// version adds is a probe: how long before its plan the phone last ranged its beacon. RegionSync
/// reports an added region that started inside as an enter (its `requestState` answer) in the
/// reports after it applied the version; one still monitored but never reported entered within
/// ``answerWithin`` of the plan started outside: the window is shorter than its age then.
struct InRangeWindow: Equatable {
    /// The window assumed until the phone shows a shorter one, milliseconds.
    static let assumed: Int64 = 30_000
    /// The shortest window ever assumed, milliseconds: a detection this recent may always count.
    static let shortest: Int64 = 5_000
    /// How long after its plan a probe waits for its enter, milliseconds: the phone applies a
    /// version within a second or two while awake, and asks and reports the states right after.
    static let answerWithin: Int64 = 5_000
    /// Probes kept at most (the oldest go first).
    static let maximumProbes = 64

    /// A region a version added, and how long before its plan the phone had last ranged its beacon.
    struct Probe: Equatable {
        var region: Int32
        var age: Int64
        var version: UInt64 = 0
        var planned: Int64 = 0
        /// When a report first said the phone applied this version or a later one.
        var applied: Int64? = nil
    }

    /// Milliseconds: an added region whose beacon was last ranged this long ago was seen to
    /// start outside (the window is shorter).
    private(set) var outsideAfter: Int64 = Self.assumed
    private var probes: [Probe] = []

    /// Whether a probe waits for the phone's answer.
    var isWaiting: Bool { !probes.isEmpty }

    /// The window the planner assumes for this phone, milliseconds.
    var window: Int64 { Swift.max(Self.shortest, Swift.min(outsideAfter, Self.assumed)) }

    /// Version `version`, planned at `now` (milliseconds), adds `added` (regions the phone never
    /// ranged say nothing and are left out).
    mutating func probe(version: UInt64, at now: Int64, added: [Probe]) {
        for var probe in added {
            probe.version = version
            probe.planned = now
            probes.append(probe)
        }
        if probes.count > Self.maximumProbes { probes.removeFirst(probes.count - Self.maximumProbes) }
    }

    /// A report at `now` says the phone applied `version`, iOS reported `entered` (enters,
    /// `requestState` answers included) and the phone ranged the beacons of `ranged`; `monitored`
    /// is the set planned now. Learns from the probes it answers. A probe whose beacon the phone
    /// ranges again once it applied the version says nothing: an enter then may be a detection
    /// after the add as well as the answer that it started inside.
    mutating func answer(version: UInt64?, entered: Set<Int32>, ranged: Set<Int32>, monitored: [Int32], at now: Int64) {
        var kept: [Probe] = []
        for var probe in probes {
            if let version, version >= probe.version, probe.applied == nil { probe.applied = now }
            if probe.applied != nil {
                if ranged.contains(probe.region) { continue }  // detectable again: no answer to learn from
                if entered.contains(probe.region) { continue }  // started inside: the window is at least its age
            }
            if now - probe.planned > Self.answerWithin {
                // Never reported entered while it stayed monitored and quiet: it started outside,
                // added at most this long after its beacon's last detection.
                if let applied = probe.applied, monitored.contains(probe.region) {
                    outsideAfter = Swift.min(outsideAfter, probe.age + (applied - probe.planned))
                }
                continue
            }
            kept.append(probe)
        }
        probes = kept
    }
}
