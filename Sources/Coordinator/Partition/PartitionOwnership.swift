public import Foundation
import Synchronization
public import WireProtocol

/// A partitioned coordinator's view of who owns what, shared by its network thread (member
/// statuses), its core (admitting input, the fence) and its publisher (which outputs go out).
///
/// - Membership: ``note(_:heardAt:retained:)`` for every member status; ``refresh(now:)`` recomputes
///   the live set and, when it changed, the owned partitions (``Rendezvous``), unless this member
///   stopped hearing its own heartbeats (``deafAfter``).
/// - Ownership: a member reads and publishes only for partitions it owns, and not during the
///   grace after gaining one, nor while fenced.
/// - The fence: a `regions` message from another member with a version not older than this member's
///   for a client of a partition it owns (past the grace) silences that partition until the live
///   set changes (or ``PartitionConfiguration/fenceHold`` passes), logged and counted.
public final class PartitionOwnership: Sendable {
    public let configuration: PartitionConfiguration
    public let map: PartitionMap
    private let state: Mutex<State>

    struct State {
        var view = MembershipView()
        var live: [String] = []
        var owned: Set<Int> = []
        var graceUntil: [Int: Date] = [:]
        /// When each owned partition was gained (see ``seen(_:client:ownVersion:now:)``: the grace's back-off).
        var gainedAt: [Int: Date] = [:]
        var fencedUntil: [Int: Date] = [:]
        var clientPartition: [String: Int] = [:]
        /// Per client, the last version adopted from another member.
        var adopted: [String: UInt64] = [:]
        /// Ownership is not decided before this (one timeout after joining: the others' heartbeats arrive first).
        var decideAfter: Date
        /// After a reconnection: the members live before it, and when it came. Once each has been
        /// heard since, ownership is decided without waiting out the timeout.
        var awaiting: [String] = []
        var reconnectedAt: Date = .distantFuture
        /// Whether the last decision was taken alone with silent members (see ``refresh(now:)``).
        var silent = false
        /// Per client, when another member's set for it last arrived, and the partition it placed the client in.
        var foreign: [String: (at: Date, partition: Int)] = [:]
        /// Per client, its last report's partition and arrival (``partition(ofReport:client:now:regionOfBeacon:)``).
        var lastReport: [String: (partition: Int, at: Date)] = [:]
        /// Per client that crossed from another member's partition into one of this member's: not
        /// answered before this (``crossingHold`` after its report there).
        var crossingUntil: [String: Date] = [:]
    }

    /// A change of the live set and of what this member owns.
    public struct Change: Sendable, Equatable {
        public var live: [String]
        public var gained: [Int]
        public var lost: [Int]
        public var owned: [Int]
    }

    public init(configuration: PartitionConfiguration, map: PartitionMap, joined: Date = Date()) {
        self.configuration = configuration
        self.map = map
        self.state = Mutex(State(decideAfter: joined.addingTimeInterval(configuration.timeout)))
    }

    public var member: String { configuration.member }

    /// Notes another member's (or this member's echoed) status.
    public func note(_ status: CoordinatorMemberStatus, heardAt: Date = Date(), retained: Bool = false) {
        state.withLock { $0.view.note(status, heardAt: heardAt, retained: retained) }
    }

    /// Recomputes the live set; when it changed, the owned partitions (gained ones get the grace,
    /// and every fence is lifted: membership moved on). `nil` when nothing changed.
    public func refresh(now: Date = Date()) -> Change? {
        state.withLock { state in
            // Deaf to its own heartbeats (once heard): the others' silence may be its own path's.
            if let own = state.view.members[member]?.heard, now.timeIntervalSince(own) > deafAfter { return nil }
            // Back from a lost connection, early: only once it hears its own heartbeat again (its
            // subscriptions are back) and every member it knew live before (never with none to
            // wait for: alone, or not yet decided, it waits out the timeout as when joining).
            let (view, reconnectedAt) = (state.view, state.reconnectedAt)
            let heardSince = { (member: String) in (view.members[member]?.heard ?? .distantPast) >= reconnectedAt }
            let rejoined =
                reconnectedAt <= now && !state.awaiting.isEmpty && heardSince(member) && state.awaiting.allSatisfy(heardSince)
            guard now >= state.decideAfter || rejoined else { return nil }
            state.awaiting = []
            state.reconnectedAt = .distantFuture
            state.decideAfter = .distantPast
            var live = state.view.live(now: now, timeout: configuration.timeout, venue: map.venue)
            if !live.contains(member) {
                live.append(member)  // this member is live whatever its echo says
                live.sort()
            }
            // Alone, with members gone silent rather than offline: more likely this member cannot
            // hear them (a broker in turmoil) than all of them died (a crash publishes the will at
            // once), so it keeps what it owns and takes nothing of theirs.
            let silent =
                live == [member] && state.view.members.contains { $0.key != member && $0.value.online && $0.value.venue == map.venue }
            guard live != state.live || silent != state.silent else { return nil }
            state.live = live
            state.silent = silent
            var owned = Set(map.names.indices.filter { Rendezvous.owner(of: map.names[$0], among: live) == member })
            // A member back from a lost connection owns nothing yet: the others may have taken its
            // partitions meanwhile, so it takes them back only once it hears them (or their wills).
            if silent { owned.formIntersection(state.owned) }
            let gained = owned.subtracting(state.owned).sorted()
            let lost = state.owned.subtracting(owned).sorted()
            for partition in gained {
                state.gainedAt[partition] = now
                state.graceUntil[partition] = now.addingTimeInterval(configuration.grace)
            }
            state.fencedUntil = [:]
            state.owned = owned
            return Change(live: live, gained: gained, lost: lost, owned: owned.sorted())
        }
    }

    /// How long without hearing its own heartbeat (once heard) a member decides nothing: it
    /// cannot tell whether the others went silent or its own path to the broker did (a NATS node
    /// in turmoil), so it neither judges them dead nor takes their partitions.
    public var deafAfter: TimeInterval { max(3 * configuration.heartbeat, configuration.timeout / 2) }

    /// The connection to the broker was lost: this member serves nothing (what it publishes
    /// cannot go out, and the others may take its partitions meanwhile) and decides nothing until
    /// ``connected(now:)``.
    public func disconnected() {
        state.withLock { state in
            // Lost again before it rejoined: still the members it knew before the first loss (its
            // live set is empty by now), so the rejoin waits for them rather than for nobody.
            state.awaiting = Set(state.awaiting + state.live.filter { $0 != member }).sorted()
            state.owned = []
            state.live = []
            state.decideAfter = .distantFuture
            state.reconnectedAt = .distantFuture
        }
    }

    /// Whether the connection is lost (``disconnected()``) and not yet back (``connected(now:)``):
    /// the member then sends no heartbeats, so the others can tell it cannot serve.
    public var isCutOff: Bool { state.withLock { $0.decideAfter == .distantFuture } }

    /// Connected (again): ownership is decided anew once every member live before the connection
    /// was lost has been heard again, or after one timeout (as when joining); every partition then
    /// owned starts with its grace.
    public func connected(now: Date = Date()) {
        state.withLock { state in
            guard state.decideAfter == .distantFuture else { return }
            state.decideAfter = now.addingTimeInterval(configuration.timeout)
            state.reconnectedAt = now
        }
    }

    /// Whether this member applies a report of `client`, in `partition`: it serves the partition,
    /// no other member published a set for the client within the last second, and the client did
    /// not just cross over from a partition this member does not serve (``crossingHold``): a phone
    /// crossing from one partition into another is handed over, not answered by both in one second.
    /// A report not applied is held (``HeldReports``) and answered once this says yes
    /// (`CoordinatorCore.releaseHeld`).
    public func serves(client: String, in partition: Int, now: Date = Date()) -> Bool {
        state.withLock { state in
            Self.serves(partition, state: state, now: now)
                && now.timeIntervalSince(state.foreign[client]?.at ?? .distantPast) >= Self.crossingHold
                && now >= state.crossingUntil[client, default: .distantPast]
        }
    }

    /// When another member's `regions` message for `client` last arrived, and the partition it
    /// placed the client in (`nil`: never).
    public func lastForeignSet(for client: String) -> (at: Date, partition: Int)? {
        state.withLock { $0.foreign[client] }
    }

    /// How long after a client's report in another member's partition this member waits before it
    /// answers the client's next report in its own: that member answered the first one at about
    /// its arrival, and its set must be heard here (its version adopted) before this member
    /// publishes one above it. Without it, a phone crossing between levels on a NATS cluster (whose
    /// sets arrive late) was answered by both members 0.03 s apart (`scripts/partition-check`).
    public static let crossingHold: TimeInterval = 1

    /// Whether this member reads and publishes for `partition` now.
    public func serves(_ partition: Int, now: Date = Date()) -> Bool {
        state.withLock { Self.serves(partition, state: $0, now: now) }
    }

    private static func serves(_ partition: Int, state: State, now: Date) -> Bool {
        state.owned.contains(partition) && now >= state.graceUntil[partition, default: .distantPast]
            && now >= state.fencedUntil[partition, default: .distantPast]
    }

    /// Whether this member owns `partition` (serving it, or in its grace, or fenced).
    public func owns(_ partition: Int) -> Bool {
        state.withLock { $0.owned.contains(partition) }
    }

    /// The partitions owned now (fenced or in grace included), and those fenced now.
    public func owned(now: Date = Date()) -> (owned: [Int], fenced: [Int]) {
        state.withLock { state in
            (state.owned.sorted(), state.fencedUntil.filter { $0.value > now }.map(\.key).sorted())
        }
    }

    /// The live members as last computed.
    public var live: [String] { state.withLock { $0.live } }

    /// The partition of a phone's `report`: by the levels of the regions it ranged or reported
    /// events for (the most named), else the partition its last `regions` message placed it in,
    /// else the venue's first. Remembered for the client.
    public func partition(ofReport report: ClientReport, client: String, now: Date = Date(), regionOfBeacon: (RangedBeacon) -> String?)
        -> Int
    {
        var votes: [Int: Int] = [:]
        for event in report.events { if let p = map.partition(ofRegion: event.region) { votes[p, default: 0] += 1 } }
        for beacon in report.ranged {
            if let id = regionOfBeacon(beacon), let p = map.partition(ofRegion: id) { votes[p, default: 0] += 1 }
        }
        return state.withLock { state in
            let chosen = votes.max { ($0.value, -$0.key) < ($1.value, -$1.key) }?.key ?? state.clientPartition[client] ?? 0
            state.clientPartition[client] = chosen
            if let previous = state.lastReport[client], previous.partition != chosen,
                !Self.serves(previous.partition, state: state, now: now)
            {
                let until = previous.at.addingTimeInterval(Self.crossingHold)
                if until > now { state.crossingUntil[client] = until }
            }
            if state.crossingUntil[client].map({ $0 <= now }) ?? false { state.crossingUntil[client] = nil }
            state.lastReport[client] = (chosen, now)
            return chosen
        }
    }

    /// The partition of a client placed at `level` (`nil`: where it was last placed, else the first).
    public func partition(ofClient client: String, level: String?) -> Int {
        state.withLock { state in
            if let level, let p = map.partition(ofLevel: level) {
                state.clientPartition[client] = p
                return p
            }
            return state.clientPartition[client] ?? 0
        }
    }

    /// What a `regions` message seen on the broker means for this member.
    public enum Seen: Sendable, Equatable {
        /// Published by this member (its echo).
        case own
        /// Another member's: continue from its version.
        case adopt
        /// Another member's, not older than this member's version, in a partition this member serves:
        /// that partition is fenced now (and the version adopted too).
        case fenced(partition: Int)
    }

    /// Classifies `message` for `client`, whose version here is `ownVersion`.
    public func seen(_ message: RegionsMessage, client: String, ownVersion: UInt64, now: Date = Date()) -> Seen {
        if message.coordinator == member { return .own }
        let partition = partition(ofClient: client, level: message.position?.level)
        return state.withLock { state in
            // A version already adopted from another member is a QoS 1 redelivery, not news.
            state.foreign[client] = (now, partition)
            if let known = state.adopted[client], message.version <= known { return .adopt }
            state.adopted[client] = message.version
            // In the grace of a partition just gained, a set another member decided after the gain
            // (its `time`, beyond a clock skew allowance) means it still acts as the owner, its view of
            // the live set not this member's: back off (fenced) rather than publish beside it.
            // Sets decided before the gain are the previous owner's last ones, what the grace waits for.
            if state.owned.contains(partition), now < state.graceUntil[partition, default: .distantPast],
                let gained = state.gainedAt[partition], let decided = message.time,
                decided.timeIntervalSince(gained) > Self.clockSkew
            {
                state.fencedUntil[partition] = now.addingTimeInterval(configuration.fenceHold)
                return .fenced(partition: partition)
            }
            // Equal counts too: two members that both published this version each think they own the client.
            guard message.version >= ownVersion, ownVersion > 0, Self.serves(partition, state: state, now: now) else { return .adopt }
            state.fencedUntil[partition] = now.addingTimeInterval(configuration.fenceHold)
            return .fenced(partition: partition)
        }
    }

    /// How far apart two members' clocks may be when their sets' `time` is compared.
    static let clockSkew: TimeInterval = 0.25

    /// The partition an output belongs to (by the position it carries, else the client's last).
    public func partition(of output: CoordinatorOutput) -> Int {
        switch output {
        case .regions(let client, let message): partition(ofClient: client, level: message.position?.level)
        case .event(let client, let event): partition(ofClient: client, level: event.position?.level)
        case .clearRegions(let client): partition(ofClient: client, level: nil)
        }
    }
}
