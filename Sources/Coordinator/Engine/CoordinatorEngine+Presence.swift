import Foundation
import Planner
import Topology
import WireProtocol

/// Room and floor presence: the engine runs every estimate of a client through the venue's
/// ``Planner/RoomFilter`` and publishes what it shows as room and level enter and exit events;
/// `position.room` (client state, the map, Home Assistant) is the room it shows.
extension CoordinatorEngine {
    /// Folds the client's estimate at `point` into its presence and emits the changes (room and
    /// level exits before enters), with evidence `presence`.
    func stepPresence(_ record: inout ClientRecord, at point: VenuePoint, now: Int64, time: Int64) {
        let topology = venue.topology
        guard let level = topology.levelIndex(id: point.level) else { return }
        let change = venue.roomFilter.step(&record.presence, x: point.x, y: point.y, level: level, time: Double(now) / 1000)
        guard !change.isEmpty else { return }
        let position = position(record)
        let levels = topology.levels.count > 1
        if change.roomChanged, let room = change.fromRoom {
            emitPresence(.exit, room: topology.areas[room].id, client: record.id, position: position, time: time)
        }
        if levels, change.levelChanged, let level = change.fromLevel {
            emitPresence(.exit, level: topology.levels[level].id, client: record.id, position: position, time: time)
        }
        let confidence = (Double(record.presence.confidence) * 100).rounded() / 100
        if levels, change.levelChanged, let level = change.toLevel {
            emitPresence(
                .enter, level: topology.levels[level].id, confidence: confidence, client: record.id, position: position, time: time)
        }
        if change.roomChanged, let room = change.toRoom {
            emitPresence(.enter, room: topology.areas[room].id, confidence: confidence, client: record.id, position: position, time: time)
        }
    }

    /// The client left (absence): exits from the room and level presence showed, and presence forgotten.
    func emitPresenceExits(_ record: inout ClientRecord, position: Position?, time: Int64) {
        let topology = venue.topology
        if let room = record.presence.room {
            emitPresence(.exit, room: topology.areas[room].id, client: record.id, position: position, time: time, evidence: "absence")
        }
        if topology.levels.count > 1, let level = record.presence.level {
            emitPresence(.exit, level: topology.levels[level].id, client: record.id, position: position, time: time, evidence: "absence")
        }
        record.presence.reset()
    }

    func emitPresence(
        _ type: ClientEvent.Kind, room: String? = nil, level: String? = nil, confidence: Double? = nil, client: String, position: Position?,
        time: Int64, evidence: String = "presence"
    ) {
        let event = ClientEvent(
            client: client, type: type, room: room, level: level, confidence: confidence, position: position,
            time: Milliseconds.date(time), evidence: evidence)
        outbox.publish(.event(client: client, event))
        counters.eventsPublished += 1
    }
}
