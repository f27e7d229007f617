/// iOS's beacon-region monitoring for one app, as `../shared/IOS.md` states it, stepped by the
/// simulation's clock: which regions the app holds, which of them iOS considers *inside*, and the
/// enter and exit events that wake a suspended app.
///
/// - A held region is *inside* from the first detection of its beacon while *outside* (an enter
///   event) until `exitDelay` seconds (about 30) after the last detection (an exit event).
/// - A region added while its beacon is detected fires no enter: the app asks for its state
///   (`requestState`) and learns *inside*.
/// - The app shares `slots` (20) with regions of its own (`appRegions`); adds past them are refused.
public struct IOSRegionMonitoring: Sendable {
    /// What iOS tells the app.
    public enum Event: Sendable, Hashable {
        case enter(Int)
        case exit(Int)
    }

    /// Regions per app, all kinds (iOS's limit).
    public var slots: Int
    /// Slots the app's own regions (geofences, another SDK's) take.
    public var appRegions: Int
    /// Seconds after the last detection before iOS reports an exit.
    public var exitDelay: Double
    /// Seconds within which a detection still answers *inside* to a state request.
    public var stateWindow: Double

    /// Held regions (topology indices), in the order they were added.
    public private(set) var held: [Int] = []
    /// Held regions iOS considers inside.
    public private(set) var inside = Set<Int>()
    /// When each beacon was last detected (any region, held or not: the radio, not the app).
    public private(set) var lastDetected: [Int: Double] = [:]
    private var heldSet = Set<Int>()

    public init(slots: Int = 20, appRegions: Int = 0, exitDelay: Double = 30, stateWindow: Double = 1) {
        self.slots = slots
        self.appRegions = appRegions
        self.exitDelay = exitDelay
        self.stateWindow = stateWindow
    }

    /// Slots left for BeaconFleet: the `budget` a phone reports.
    public var budget: Int { Swift.max(0, slots - appRegions) }

    /// Whether `region` is held.
    public func holds(_ region: Int) -> Bool { heldSet.contains(region) }

    /// Advances to `now` with the beacons `detected` at this moment; returns the events, enters
    /// before exits, each in region order.
    public mutating func step(detected: some Sequence<Int>, now: Double) -> [Event] {
        var entered: [Int] = []
        for region in detected {
            lastDetected[region] = now
            if heldSet.contains(region), inside.insert(region).inserted { entered.append(region) }
        }
        var exited: [Int] = []
        for region in inside where now - (lastDetected[region] ?? -.infinity) >= exitDelay { exited.append(region) }
        for region in exited { inside.remove(region) }
        return entered.sorted().map(Event.enter) + exited.sorted().map(Event.exit)
    }

    /// Makes the held set `wanted` (in priority order): removes first, then adds while slots are
    /// left, asking the state of each added region. Returns how many were added and removed.
    @discardableResult
    public mutating func apply(_ wanted: [Int], now: Double) -> (added: Int, removed: Int) {
        let wantedSet = Set(wanted)
        let removing = held.filter { !wantedSet.contains($0) }
        for region in removing {
            heldSet.remove(region)
            inside.remove(region)
        }
        held.removeAll { !wantedSet.contains($0) }
        var added = 0
        for region in wanted where !heldSet.contains(region) && held.count < budget {
            held.append(region)
            heldSet.insert(region)
            added += 1
            if now - (lastDetected[region] ?? -.infinity) <= stateWindow { inside.insert(region) }  // requestState: inside, no enter
        }
        return (added, removing.count)
    }
}
