import BeaconKit
import Foundation
import Planner
import Topology
import WireProtocol

extension ClientRecord {
    enum CoverOutcome { case stays, left, leftFromInside }

    /// Whether this dirty record is a tag whose only news is sightings that can wait for a later
    /// flush (see ``CoordinatorEngine/Configuration/tagEstimateInterval`` and
    /// ``CoordinatorEngine/Configuration/tagEstimateSpacing``).
    @inline(__always)
    func waitsForEstimate(now: Int64, interval: Int64, spacing: Int64, backlogged: Bool) -> Bool {
        guard !isPhone, !forcePlan, reconcileFrom == nil, reason == nil, let location, let estimatedAt = estimatedAt.milliseconds,
            now >= estimatedAt, now - estimatedAt < interval
        else { return false }
        if backlogged || now - estimatedAt < spacing { return true }
        var newest = Int64.min
        for observation in observations where observation.time > newest { newest = observation.time }
        let estimated = Milliseconds.of(stateTime: location.time)
        return newest != .min && newest >= estimated && newest - estimated < interval
    }

    /// `isPhone` and ``waitsForEstimate(now:interval:spacing:backlogged:)`` for ``CoordinatorEngine/flush(now:backlogged:phonesOnly:limit:)``,
    /// as a mutating call (it changes nothing) so that `records[i]?.flushCheck(…)` works on the
    /// record in place: reading fields through `?.` copied the whole record, retaining and
    /// releasing its arrays, for each dirty client of every flush (~9 % of the pinned coordinator's core).
    @inline(__always)
    mutating func flushCheck(now: Int64, interval: Int64, spacing: Int64, backlogged: Bool) -> (isPhone: Bool, waits: Bool) {
        (isPhone, waitsForEstimate(now: now, interval: interval, spacing: spacing, backlogged: backlogged))
    }

    /// One gateway stopped covering this client; when none covers it any more it has left (its
    /// `inside` is kept for the caller's exit events).
    @inline(__always)
    mutating func loseCover() -> CoverOutcome {
        coverCount = coverCount > 0 ? coverCount - 1 : 0
        guard coverCount == 0, present else { return .stays }
        let wasInside = !inside.isEmpty || presence.level != nil
        leave(keepingInside: true)
        return wasInside ? .leftFromInside : .left
    }

    /// The client left (absence): not present, no evidence kept. `inside` is emptied unless the
    /// caller still has exit events to emit from it.
    @inline(__always)
    mutating func leave(keepingInside: Bool) {
        if !keepingInside { inside = [] }
        present = false
        observations.removeAll(keepingCapacity: true)
        needsPersist = true
    }

    /// One sighting of this client: keeps the observation and updates when it was seen, whether a
    /// new gateway covers it and its presence.
    @inline(__always)
    mutating func absorb(
        _ observation: CompactObservation, seenAt: Int64, covered: Bool, maximum: Int, horizon: Int64, persistInterval: Int64
    ) {
        observe(observation, maximum: maximum, horizon: horizon)
        if lastSeen < seenAt { lastSeen = seenAt }
        if !covered { coverCount &+= 1 }
        if !present {
            present = true
            forcePlan = true
        }
        if seenAt - persistedSeen > persistInterval { needsPersist = true }
    }

    /// Keeps the newest observation per anchor, drops those past the horizon, keeps at most
    /// `maximum`: the newest, and of those equally new (one report, one window) the strongest,
    /// the nearest anchors and so the best evidence of where the client is.
    @inline(__always)
    mutating func observe(_ observation: CompactObservation, maximum: Int, horizon: Int64) {
        if let at = observations.firstIndex(where: { $0.anchor == observation.anchor }) {
            if observations[at].time <= observation.time { observations[at] = observation }
        } else {
            observations.append(observation)
        }
        if observations.count > 1 {
            if observations.contains(where: { observation.time - $0.time > horizon }) {
                observations.removeAll { observation.time - $0.time > horizon }
            }
            if observations.count > maximum {
                observations.sort { ($0.time, $0.rssi) > ($1.time, $1.rssi) }
                observations.removeLast(observations.count - maximum)
            }
        }
    }

    /// Notes that the phone ranged `region` at `time`, first forgetting regions not ranged within
    /// `window` milliseconds of it: their approach ended (see ``CoordinatorEngine/heard(by:now:)``),
    /// so `region` itself, after such a gap (the phone slept through it), starts a new one, not
    /// told yet. Forgetting a told region re-plans: its slot may be wanted again.
    mutating func hear(_ region: Int32, at time: Int64, window: Int64) {
        if heard.contains(where: { time - $0.time >= window }) {
            if heard.contains(where: { $0.told && time - $0.time >= window }) { forcePlan = true }
            heard.removeAll { time - $0.time >= window }
        }
        if let at = heard.firstIndex(where: { $0.region == region }) {
            heard[at].time = max(heard[at].time, time)
        } else {
            heard.append(HeardRegion(region: region, time: time, told: false))
        }
    }

    /// iOS told the app it is inside `region` (an enter, or the answer to `requestState`) or, with
    /// `false`, that it left: marks the approach of a region the phone ranges as told or not.
    mutating func tell(_ region: Int32, _ told: Bool) {
        if let at = heard.firstIndex(where: { $0.region == region }) { heard[at].told = told }
    }

    /// iOS monitors `region` (the report of `time` says so): told, if the phone ranged it in that
    /// same report (monitored while detected: its approach is covered). Answers whether that is news.
    mutating func tellIfRanged(_ region: Int32, at time: Int64) -> Bool {
        guard let at = heard.firstIndex(where: { $0.region == region }), heard[at].time == time, !heard[at].told else { return false }
        heard[at].told = true
        return true
    }
}
