import BeaconKit
import Foundation
import WireProtocol

/// Partitioned coordinators: which inbound messages this member applies.
extension CoordinatorCore {
    /// Whether `inbound` is this member's to apply; `regions` messages (another member's, or the
    /// retained ones) are taken here: their versions adopted and the fence checked.
    func admits(_ inbound: InboundMessage, ownership: PartitionOwnership, now: Int64) -> Bool {
        switch inbound.payload {
        case .sightings(let gateway, _):
            return ownership.map.partition(ofGateway: gateway).map { ownership.serves($0) } ?? false
        case .report(let client, let report):
            let venue = engine.venue
            let date = Milliseconds.date(now)
            let partition = ownership.partition(ofReport: report, client: client, now: date) { beacon in
                BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
                    .flatMap { venue.regionByBeacon[$0] }.map { venue.id(ofRegion: $0) }
            }
            guard ownership.serves(client: client, in: partition) else {
                // Kept for the plans this member makes if it takes the client over.
                engine.noteReport(client: client, report: report, now: now)
                heldReports.hold(inbound, client: client, partition: partition, owned: ownership.owns(partition), now: date)
                return false
            }
            return true
        case .regions(let client, let regions):
            switch ownership.seen(regions, client: client) {
            case .own: return false
            case .adopt: break
            case .fenced(let partition, let token):
                partitionMetrics?.fences.increment()
                log.warning(
                    "fenced: \(regions.coordinator ?? "another coordinator") published for \(client) with token \(token), above ours (\(ownership.token(of: partition).map { "\($0)" } ?? "none")); not publishing for partition \(ownership.map.names[partition]) under it",
                    source: "fence")
            }
            engine.adoptPublished(client: client, message: regions, now: now)
            return false
        case .memberStatus(let status):
            // Another member says what it owns: it may have been off the broker a moment, keeping them.
            if status.member != ownership.member, status.state == .online {
                let partitions = Set((status.partitions ?? []).compactMap(ownership.map.partition(named:)))
                heldReports.noteStatus(partitions: partitions, at: Milliseconds.date(now))
            }
            return false
        case .gatewayStatus, .ignored, .rejected:
            return true  // applied, ignored, or counted and logged by the engine
        }
    }

    /// The member was cut off from the broker (``CoordinatorEngine/missedReports()``).
    public func missedReports() {
        engine.missedReports()
    }

    /// The live set or this member's partitions changed: reports held around now may have reached
    /// no member that will serve them (``relayHeld(ownership:now:)``). The next set of each client
    /// of the partitions `gained` (joined, taken over, or back after a lost connection) continues
    /// from the clock, above whatever another member published meanwhile
    /// (``CoordinatorEngine/markHandedOver(where:)``), and their held reports are due.
    func membershipChanged(gained partitions: [Int], ownership: PartitionOwnership, now: Date = Date()) {
        heldReports.noteChange(at: now)
        guard !partitions.isEmpty else { return }
        let gained = Set(partitions)
        engine.markHandedOver { gained.contains(ownership.partition(ofClient: $0, level: nil)) }
        heldReports.due(partitions: gained, now: now)
    }

    /// Applies the held reports (``HeldReports``) this member serves now (of partitions just gained,
    /// or of clients whose crossing hold has passed) that no other member answered since they
    /// arrived, and returns what to publish. Called every membership tick.
    func releaseHeld(ownership: PartitionOwnership, now: Date = Date()) -> [CoordinatorOutput] {
        guard !heldReports.due.isEmpty else { return [] }
        let held = heldReports.take(now: now, answered: { ownership.lastForeignSet(for: $0) }, owned: ownership.owns) { client, partition in
            ownership.serves(client: client, in: partition, now: now)
        }
        guard !held.isEmpty else { return [] }
        return process(held, now: Milliseconds.of(now))
    }

    /// The held reports to relay now (``HeldReports/relays(now:answered:owned:)``): their topics and bytes.
    func relayHeld(ownership: PartitionOwnership, now: Date = Date()) -> [(topic: String, payload: [UInt8])] {
        heldReports.relays(now: now, answered: { ownership.lastForeignSet(for: $0) }, owned: ownership.owns).map { held in
            (held.topic, held.bytes.map { $0.withUnsafeBytes { Array($0) } } ?? [])
        }
    }
}
