public import Etcd
public import Foundation
import Synchronization
public import WireProtocol

/// A partitioned coordinator's view of who owns what, shared by its network thread, its core
/// (admitting input, the fence) and its publisher (which outputs go out).
///
/// - Ownership comes from etcd (``Etcd/EtcdElection``): a partition is owned while this member holds
///   its owner key, with the key's create revision as the fencing token (``hold(_:token:)``).
/// - Self-fencing: nothing is served past ``leaseValid(until:)``, a margin before the lease could expire.
/// - The fence: a `regions` message carrying a higher token for a partition this member holds
///   means another member holds it now: the partition is not served again under this token.
public final class PartitionOwnership: Sendable {
    public let configuration: PartitionConfiguration
    public let map: PartitionMap
    private let state: Mutex<State>

    struct State {
        var live: [String] = []
        /// Owned partitions and their tokens.
        var owned: [Int: UInt64] = [:]
        /// Per partition, the highest token seen in another member's `regions` message.
        var foreignToken: [Int: UInt64] = [:]
        /// Served only before this: a margin before the lease could expire.
        var leaseValidUntil: ContinuousClock.Instant?
        var leaseIsValid: Bool { leaseValidUntil.map { ContinuousClock.now < $0 } ?? false }
        var clientPartition: [String: Int] = [:]
        /// Per client, when another member's set for it last arrived, and the partition it placed the client in.
        var foreign: [String: (at: Date, partition: Int)] = [:]
        /// Per client, its last report's partition and arrival (``partition(ofReport:client:now:regionOfBeacon:)``).
        var lastReport: [String: (partition: Int, at: Date)] = [:]
        /// Per client that crossed from another member's partition into one of this member's: not
        /// answered before this (``crossingHold`` after its report there).
        var crossingUntil: [String: Date] = [:]
    }

    /// A change of the live set or of what this member owns.
    public struct Change: Sendable, Equatable {
        public var live: [String]
        public var gained: [Int]
        public var lost: [Int]
        public var owned: [Int]
    }

    public init(configuration: PartitionConfiguration, map: PartitionMap) {
        self.configuration = configuration
        self.map = map
        self.state = Mutex(State())
    }

    public var member: String { configuration.member }

    /// This member holds `partition`'s owner key, created at revision `token`. A change when it
    /// was not held under this token before.
    public func hold(_ partition: Int, token: UInt64) -> Change? {
        state.withLock { state in
            guard state.owned[partition] != token else { return nil }
            let gained = state.owned[partition] == nil
            state.owned[partition] = token
            return gained ? Self.change(state, gained: [partition], lost: []) : nil
        }
    }

    /// This member no longer holds `partition` (released, taken, or its lease gone). A change when it did.
    public func release(_ partition: Int) -> Change? {
        state.withLock { state in
            guard state.owned.removeValue(forKey: partition) != nil else { return nil }
            return Self.change(state, gained: [], lost: [partition])
        }
    }

    /// The live set as etcd has it (the member keys). A change when it differs.
    public func setLive(_ live: [String]) -> Change? {
        state.withLock { state in
            guard state.live != live else { return nil }
            state.live = live
            return Self.change(state, gained: [], lost: [])
        }
    }

    private static func change(_ state: State, gained: [Int], lost: [Int]) -> Change {
        Change(live: state.live, gained: gained, lost: lost, owned: state.owned.keys.sorted())
    }

    /// The lease was renewed: serve until `instant` (a margin before it could expire); `nil`: not at all.
    public func leaseValid(until instant: ContinuousClock.Instant?) {
        state.withLock { $0.leaseValidUntil = instant }
    }

    /// Whether the lease is known valid now (false: self-fenced, or no lease yet).
    public var leaseIsValid: Bool {
        state.withLock { $0.leaseIsValid }
    }

    /// The token under which `partition` is held (`nil`: not held).
    public func token(of partition: Int) -> UInt64? {
        state.withLock { $0.owned[partition] }
    }

    /// Whether this member applies a report of `client`, in `partition`: it serves the partition,
    /// no other member published a set for the client within ``crossingHold``, and the client did
    /// not just cross over from a partition this member does not serve. A report not applied is
    /// held (``HeldReports``) and answered once this says yes (`CoordinatorCore.releaseHeld`).
    public func serves(client: String, in partition: Int, now: Date = Date()) -> Bool {
        state.withLock { state in
            Self.serves(partition, state: state)
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
    /// answers the client's next report in its own: that member's set must be heard here (its
    /// version adopted) before this member publishes one above it.
    public static let crossingHold: TimeInterval = 1

    /// Whether this member reads and publishes for `partition` now.
    public func serves(_ partition: Int) -> Bool {
        state.withLock { Self.serves(partition, state: $0) }
    }

    private static func serves(_ partition: Int, state: State) -> Bool {
        guard let token = state.owned[partition] else { return false }
        return token > state.foreignToken[partition, default: 0] && state.leaseIsValid
    }

    /// The higher tokens seen for `partition` came from another etcd history: they fence nothing.
    /// False when `partition` is no longer held under `token`.
    public func unfence(_ partition: Int, token: UInt64) -> Bool {
        state.withLock { state in
            guard state.owned[partition] == token else { return false }
            state.foreignToken[partition] = nil
            return true
        }
    }

    /// Whether this member owns `partition` (serving it, or fenced).
    public func owns(_ partition: Int) -> Bool {
        state.withLock { $0.owned[partition] != nil }
    }

    /// The partitions owned now (fenced included), and those fenced now.
    public func owned() -> (owned: [Int], fenced: [Int]) {
        state.withLock { state in
            let owned = state.owned.keys.sorted()
            return (owned, owned.filter { state.owned[$0]! <= state.foreignToken[$0, default: 0] })
        }
    }

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
            if let previous = state.lastReport[client], previous.partition != chosen, !Self.serves(previous.partition, state: state) {
                let until = previous.at.addingTimeInterval(Self.crossingHold)
                if until > now { state.crossingUntil[client] = until }
            }
            if state.crossingUntil[client].map({ $0 <= now }) ?? false { state.crossingUntil[client] = nil }
            state.lastReport[client] = (chosen, now)
            return chosen
        }
    }

    /// The partition of a client: a phone's is where its last report placed it (every member reads
    /// a phone's reports alike, so the member that applied a report publishes its answer); any
    /// other client's is that of `level`, the level of an estimate (`nil`: where it was last
    /// placed, else the first).
    public func partition(ofClient client: String, level: String?) -> Int {
        state.withLock { state in
            if let reported = state.lastReport[client] { return reported.partition }
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
        /// Another member's, with a token above the one this member holds its partition under:
        /// that member holds the partition now, and this one no longer serves it (the version is
        /// adopted too).
        case fenced(partition: Int, token: UInt64)
    }

    /// Classifies `message` for `client`.
    public func seen(_ message: RegionsMessage, client: String, now: Date = Date()) -> Seen {
        if message.coordinator == member { return .own }
        let partition = message.partition.flatMap(map.partition(named:)) ?? partition(ofClient: client, level: message.position?.level)
        return state.withLock { state in
            state.foreign[client] = (now, partition)
            // Where the set's owner placed a phone whose reports this member has not read yet.
            if message.partition != nil, state.lastReport[client] == nil { state.clientPartition[client] = partition }
            var fenced = false
            if let token = message.token, token > state.foreignToken[partition, default: 0] {
                state.foreignToken[partition] = token
                // Newly above this member's token: it stops serving the partition at once.
                if let own = state.owned[partition], token > own { fenced = true }
            }
            if fenced { return .fenced(partition: partition, token: message.token ?? 0) }
            return .adopt
        }
    }

    /// The partition an output belongs to: a phone's last report's, else by the position it
    /// carries, else the client's last (``partition(ofClient:level:)``).
    public func partition(of output: CoordinatorOutput) -> Int {
        switch output {
        case .regions(let client, let message): partition(ofClient: client, level: message.position?.level)
        case .event(let client, let event): partition(ofClient: client, level: event.position?.level)
        case .clearRegions(let client): partition(ofClient: client, level: nil)
        }
    }
}

extension PartitionOwnership: EtcdElectionState {
    /// The partitions held now (fenced included).
    public var heldPartitions: [Int] { owned().owned }
}
