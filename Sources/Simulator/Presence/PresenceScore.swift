/// How well the shown place (a room, or a level) of clients followed the true one; a
/// ``Recorder`` per client is fed one sample per tick, in time order, with the truth and what was
/// shown at that moment, and the clients' scores are merged.
///
/// - **correct**: the share of the time the truth is a place (a room; a walker between rooms, on
///   a stair, counts nowhere) that the shown place was that one; nothing shown counts as wrong;
/// - **false changes**: a change of the shown place to one the client has not been in since the
///   shown place last changed (a jitter across a wall, a flap back, a room never visited); a late
///   change to a room it did pass through is not false;
/// - **detection time** of a real change: for every true visit of at least ``minimumStay``
///   seconds, the time from entering the place to showing it; a visit that ends before it is
///   shown counts as never detected (infinite, it fails any bound). Shorter visits (walking
///   through a room) are not required to be shown and are not measured.
public struct PresenceScore: Sendable, Hashable, Codable {
    /// Visits shorter than this (seconds) are passages: not measured for detection.
    public static let minimumStay = 10.0

    /// Seconds where the truth was a place, and of those where it was shown.
    public var seconds = 0.0
    public var correctSeconds = 0.0
    /// Changes of the shown place (from one place to another), and the false ones among them.
    public var changes = 0
    public var falseChanges = 0
    /// Detection times of the measured visits that were shown, seconds, and how many were never
    /// shown while they lasted.
    public var detections: [Double] = []
    public var undetected = 0
    /// Seconds the client was followed (the denominator of the hourly rates).
    public var clientSeconds = 0.0

    public init() {}

    /// Adds another client's (finished) score.
    public mutating func merge(_ other: PresenceScore) {
        seconds += other.seconds
        correctSeconds += other.correctSeconds
        changes += other.changes
        falseChanges += other.falseChanges
        detections += other.detections
        undetected += other.undetected
        clientSeconds += other.clientSeconds
    }

    /// The share of the time the shown place was the true one; nil without time in a place.
    public var correctShare: Double? { seconds > 0 ? correctSeconds / seconds : nil }

    /// False changes per hour per client.
    public var falseChangesPerHour: Double? { clientSeconds > 0 ? Double(falseChanges) * 3600 / clientSeconds : nil }

    /// The `p`-th percentile of the detection times, infinite when more than the rest were never
    /// shown (nearest rank: the smallest time at least `p` % of the visits were shown within).
    public func detection(percentile p: Double) -> Double? {
        let count = detections.count + undetected
        guard count > 0 else { return nil }
        let rank = max(1, Int((p / 100 * Double(count)).rounded(.up)))
        guard rank <= detections.count else { return .infinity }
        return detections.sorted()[rank - 1]
    }

    /// Measured visits (shown or not).
    public var visits: Int { detections.count + undetected }
}

extension PresenceScore {
    /// Scores one client: ``record(time:truth:shown:)`` every tick, then ``finish()``.
    public struct Recorder: Sendable {
        /// What was measured so far.
        public private(set) var score = PresenceScore()
        private var lastTime: Double?
        private var lastTruth: Int?
        private var lastShown: Int?
        /// The true places since the shown place last changed.
        private var visitedSinceShownChange: Set<Int> = []
        /// The current true visit: its place, when it began, when it was first shown (nil: not yet).
        private var visit: (place: Int, start: Double, shownAt: Double?)?

        public init() {}

        /// One sample: at `time` the client was truly in `truth` (nil: in no place) and `shown` was shown.
        public mutating func record(time: Double, truth: Int?, shown: Int?) {
            if let lastTime {
                let dt = time - lastTime
                score.clientSeconds += dt
                if lastTruth != nil {
                    score.seconds += dt
                    if lastShown == lastTruth { score.correctSeconds += dt }
                }
            }
            if let truth { visitedSinceShownChange.insert(truth) }
            if truth != visit?.place {
                closeVisit(at: time)
                if let truth { visit = (truth, time, nil) }
            }
            if shown != lastShown {
                if let shown, lastShown != nil {
                    score.changes += 1
                    if !visitedSinceShownChange.contains(shown) { score.falseChanges += 1 }
                }
                visitedSinceShownChange = truth.map { [$0] } ?? []
            }
            if let current = visit, current.shownAt == nil, shown == current.place { visit?.shownAt = time }
            lastTime = time
            lastTruth = truth
            lastShown = shown
        }

        /// Ends the client's record (its last visit is measured when long enough) and returns the score.
        public mutating func finish() -> PresenceScore {
            closeVisit(at: lastTime ?? 0)
            return score
        }

        private mutating func closeVisit(at time: Double) {
            guard let current = visit else { return }
            visit = nil
            guard time - current.start >= PresenceScore.minimumStay else { return }
            if let shownAt = current.shownAt { score.detections.append(shownAt - current.start) } else { score.undetected += 1 }
        }
    }
}
