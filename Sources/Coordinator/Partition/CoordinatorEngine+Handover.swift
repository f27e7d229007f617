import Foundation
import Planner
import Topology
public import WireProtocol

/// Partitioned coordinators: continuing a client's version from the `regions` message another
/// member published, and after a handover from the clock, so a new owner's first set lies above
/// every version published before it even when the previous owner's last sets arrive late.
extension CoordinatorEngine {
    /// The last version decided here for `client` (0: none).
    public func version(of client: String) -> UInt64 {
        table[id: client]?.version.current ?? 0
    }

    /// Another member published `message` for `client`: when it is newer than what this engine
    /// decided, the client's version and set become its own (its position and evidence stay: the
    /// next report or sightings bring fresh ones). Creates the record when the client is new here.
    ///
    /// A client first known here through such a set counts as one whose reports were missed
    /// (``missedReports()``) until this engine publishes its own set.
    public func adoptPublished(client: String, message: RegionsMessage, now: Int64) {
        let firstKnown = table.index(of: client) == nil
        let index = table.client(forID: client, now: now)
        // Newer than this engine's: its next version continues from the clock (``RegionsVersion/adopt(_:)``).
        guard var record = table[index], record.version.adopt(message.version) else { return }
        if firstKnown { record.missedReports = true }
        seedLocation(&record, from: message)
        // The slots the other member planned for stand for the budget the phone stated there, so
        // its next report here (stating the same) does not re-plan the set at once.
        if record.budget == .unstated, message.budget >= 0, message.budget < configuration.budget {
            record.budget = SlotLimit(clamping: message.budget)
        }
        record.regions = message.regions.compactMap { venue.topology.regionIndex(id: $0.id).map(Int32.init) }
        record.inside.removeAll { !record.regions.contains($0) }
        record.stateUnknown.removeAll { !record.regions.contains($0) }
        if record.missedReports { record.markStateUnknown() }
        record.answered = nil
        record.reconcileFrom = nil
        record.needsPersist = true
        outbox.persist(index)
        table[index] = record
    }

    /// Takes the position another member published with `message` as the client's, when this
    /// engine has none as recent: a member that gains a partition then plans each client's first
    /// set from where the previous owner placed it, not from one report without history.
    func seedLocation(_ record: inout ClientRecord, from message: RegionsMessage) {
        guard let position = message.position, let time = message.time, let level = venue.estimator.levelIndex(of: position.level)
        else { return }
        let at = Milliseconds.stateTime(Milliseconds.rounding(time))
        if let known = record.location, known.time >= at { return }
        let confidence = position.confidence ?? 5
        let point = VenuePoint(x: position.x, y: position.y, level: position.level)
        record.location = PositionState(x: point.x, y: point.y, variance: confidence * confidence, time: at, level: level)
        record.confidence = confidence
        record.plannedAt = point
        record.movedAt = point
    }

    /// A report of a client another member serves: what a plan here would need if this member
    /// takes the client over is kept — the phone's stated budget, the regions it is inside, the
    /// beacons it ranged (``ClientRecord/heard``) and their RSSI as the estimator's evidence —
    /// without estimating, planning, emitting or persisting anything, so a successor's first sets
    /// keep the regions the phone already hears.
    ///
    /// A client first known here through a report that names a set it already holds (an applied
    /// `version`, a `monitored` list) has a past this member did not see: it counts as one whose
    /// reports were missed (``missedReports()``).
    public func noteReport(client: String, report: ClientReport, now: Int64) {
        let firstKnown = table.index(of: client) == nil
        let index = table.client(forID: client, now: now)
        var record = table[index]!
        if firstKnown, (report.version ?? 0) > 0 || !(report.monitored ?? []).isEmpty { record.missedReports = true }
        record.isPhone = true
        record.lastSeen = max(record.lastSeen, now)
        if let budget = report.budget.map(SlotLimit.init(clamping:)) { record.budget = budget }
        for event in report.events {
            guard let region = venue.topology.regionIndex(id: event.region).map(Int32.init) else { continue }
            record.noteStateKnown(region)
            switch event.type {
            case .enter: if !record.inside.contains(region) { record.inside.append(region) }
            case .exit: record.inside.removeAll { $0 == region }
            }
        }
        let time = report.time.map(Milliseconds.of) ?? now
        _ = absorbRanged(report.ranged, into: &record, time: time)
        table[index] = record
    }

    /// This engine's member was cut off from the broker: the enters and exits phones reported
    /// meanwhile went unseen. So every region of every phone's set is of unknown state
    /// (``ClientRecord/stateUnknown``), and so are those not known inside of sets adopted from
    /// another member until this engine publishes its own. A region not known inside may be one
    /// the phone is in: the planner judges it by what the phone ranged and the geometry, not as a
    /// quiet one. A region known inside may have been left, or dropped from another member's set
    /// and added again: the phone's next enter or exit of it is news
    /// (``CoordinatorEngine/applyReport(client:report:now:)`` emits it).
    public func missedReports() {
        for index in table.indices where table[index]!.isPhone {
            table[index]!.missedReports = true
            table[index]!.markStateUnknown(inside: true)
        }
    }

    /// Partitions were gained: the clients `handedOver` selects may have had sets published by
    /// another member that have not arrived here, so each one's next version starts from the clock.
    public func markHandedOver(where handedOver: (String) -> Bool) {
        for index in table.indices where handedOver(table[index]!.id) {
            table[index]!.version.handOver()
        }
    }
}
