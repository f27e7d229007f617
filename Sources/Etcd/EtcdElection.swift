import Foundation
public import Logging
import Synchronization

/// What an ``EtcdElection`` drives: the member's own view of what it holds, told at once (a
/// partition is released here before its key is deleted, so it is never served after).
public protocol EtcdElectionState: AnyObject, Sendable {
    /// What the holder reports when its view changes.
    associatedtype Change: Sendable
    /// Serve only before `instant` (`nil`: not at all): a margin before the lease could expire.
    func leaseValid(until instant: ContinuousClock.Instant?)
    /// The live members, sorted.
    func setLive(_ live: [String]) -> Change?
    /// `partition` is held under `token` (its owner key's create revision).
    func hold(_ partition: Int, token: UInt64) -> Change?
    /// `partition` is no longer held.
    func release(_ partition: Int) -> Change?
    /// The partitions held now.
    var heldPartitions: [Int] { get }
}

/// Membership and ownership of partitions among the members of one group, decided in etcd.
///
/// Keys, under ``Configuration/root``:
/// - `members/{member}`: bound to the member's lease (TTL ``Configuration/leaseTTL``, renewed every
///   ``Configuration/renewal``), present while the member says it can serve (``setAvailable(_:)``).
///   The live set is what a watch of `members/` shows.
/// - `owners/{partition}`: the member holding the partition, bound to its lease, created in a
///   create-if-absent transaction by the live member ``Configuration/winner`` names; its create
///   revision is the partition's fencing token. Nobody else creates it until it is deleted:
///   released by its holder (another member wins it now, or it cannot serve), revoked with its
///   lease (``leave()``), or expired with it (a crash, or a member cut off from etcd).
///
/// A member serves only while its lease is known valid (``EtcdElectionState/leaseValid(until:)``):
/// until ``Configuration/selfFenceMargin`` before the lease could expire, counted from the sending
/// of its last answered renewal. So a member that cannot reach etcd stops before etcd lets anyone
/// else claim its partitions.
public final class EtcdElection<State: EtcdElectionState>: Sendable {
    /// What an election is about and how it keeps its lease.
    public struct Configuration: Sendable {
        public var member: String
        /// The group's keys, ending in `/`.
        public var root: String
        public var partitions: [String]
        public var leaseTTL: Int64 = 3
        public var renewal: Duration = .seconds(1)
        public var selfFenceMargin: Duration = .milliseconds(500)
        /// Which live member should hold a partition (by name), among the live members.
        public var winner: @Sendable (_ partition: String, _ live: [String]) -> String?

        public init(member: String, root: String, partitions: [String], winner: @escaping @Sendable (String, [String]) -> String?) {
            self.member = member
            self.root = root
            self.partitions = partitions
            self.winner = winner
        }
    }

    let configuration: Configuration
    let etcd: EtcdClient
    let holder: State
    let logger: Logger
    var root: String { configuration.root }
    private let state = Mutex(Keys())
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    struct Keys {
        var lease: Int64?
        /// Whether this member belongs in the live set: connected to the broker and subscribed.
        var available = false
        var leaving = false
        /// The venue's keys as the watch has them, by key.
        var members: [String: EtcdKeyValue] = [:]
        var owners: [String: EtcdKeyValue] = [:]
        /// The revision the watch has seen up to (0: range again).
        var revision: Int64 = 0
        var watch: Task<Void, Never>?
    }

    public init(configuration: Configuration, endpoints: EtcdEndpoints, state: State, logger: Logger) {
        self.configuration = configuration
        self.holder = state
        self.etcd = EtcdClient(endpoints: endpoints)
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    var membersPrefix: String { root + "members/" }
    var ownersPrefix: String { root + "owners/" }

    /// Whether this member can serve (its broker connection is up and subscribed): it joins the
    /// live set, or leaves it so that its partitions move to members that can.
    public func setAvailable(_ available: Bool) {
        let changed = state.withLock { state in
            defer { state.available = available }
            return state.available != available
        }
        if changed { wake.yield() }
    }

    /// Keeps the lease, follows the venue's keys and claims or releases partitions until
    /// cancelled; `onChange` hears every change of the live set or of what this member owns, in order.
    public func run(onChange: @escaping @Sendable (State.Change) async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.leaseLoop() }
            group.addTask { await self.watchLoop() }
            for await _ in wakes {
                if Task.isCancelled { break }
                let (changes, retry) = await reconcile()
                for change in changes { await onChange(change) }
                if retry {
                    try? await Task.sleep(for: .milliseconds(300))
                    wake.yield()
                }
            }
            group.cancelAll()
        }
    }

    /// Stops serving and revokes the lease: every key of this member goes at once, and the
    /// members that now win its partitions claim them (SIGTERM: leaving is instant).
    public func leave() async {
        let lease = state.withLock { state in
            state.leaving = true
            state.watch?.cancel()
            return state.lease
        }
        holder.leaseValid(until: nil)
        for partition in holder.heldPartitions { _ = holder.release(partition) }
        if let lease {
            do {
                try await etcd.revoke(lease)
                logger.info("membership: left (lease revoked)")
            } catch {
                logger.warning("membership: cannot revoke the lease (\(error)); it expires within \(configuration.leaseTTL) s")
            }
        }
        await etcd.shutdown()
    }

    /// Whether this member still holds `partition` under `token`, by a linearizable read of its
    /// owner key in etcd (`nil`: etcd could not be asked).
    ///
    /// A member that sees a higher token for a partition it holds is fenced. A token of this
    /// cluster comes from a claim made after this member's key was deleted, and so before the read:
    /// when the read still finds this member's key under `token`, the higher token came from
    /// another etcd history (a retained set from before etcd was recreated) and fences nothing.
    public func stillHolds(_ partition: Int, token: UInt64) async -> Bool? {
        let key = ownersPrefix + configuration.partitions[partition]
        guard let lease = state.withLock({ $0.lease }) else { return false }
        do {
            let current = try await etcd.range(prefix: key).kvs.first { $0.key == key }
            return current.map { $0.lease == lease && UInt64($0.createRevision) == token } ?? false
        } catch {
            return nil
        }
    }

    // MARK: The lease

    /// Grants the lease and renews it every ``PartitionConfiguration/renewal``, moving the
    /// self-fence deadline with each answered renewal. A lease found gone (it expired while etcd
    /// could not be reached) costs every partition at once; a new one is granted and the member joins again.
    private func leaseLoop() async {
        var failing = false
        while !Task.isCancelled {
            guard let lease = state.withLock({ $0.leaving ? nil : $0.lease }) else {
                if state.withLock({ $0.leaving }) { return }
                let sent = ContinuousClock.now
                do {
                    let granted = try await etcd.grant(ttl: configuration.leaseTTL)
                    holder.leaseValid(until: sent + .seconds(granted.ttl) - configuration.selfFenceMargin)
                    state.withLock { $0.lease = granted.id }
                    logger.info("membership: lease \(String(granted.id, radix: 16)) granted (TTL \(granted.ttl) s) by \(etcd.endpoints)")
                    failing = false
                    wake.yield()
                } catch {
                    if !failing { logger.warning("membership: cannot reach etcd for a lease (\(error)); retrying") }
                    failing = true
                    try? await Task.sleep(for: .milliseconds(500))
                }
                continue
            }
            try? await Task.sleep(for: failing ? configuration.renewal / 4 : configuration.renewal)
            if Task.isCancelled { return }
            let sent = ContinuousClock.now
            do {
                let ttl = try await etcd.keepAlive(lease, timeout: configuration.renewal * 2)
                guard ttl > 0 else {
                    logger.warning("membership: lease \(String(lease, radix: 16)) expired; serving nothing, joining again")
                    holder.leaseValid(until: nil)
                    state.withLock { state in
                        if state.lease == lease { state.lease = nil }
                    }
                    wake.yield()
                    continue
                }
                holder.leaseValid(until: sent + .seconds(ttl) - configuration.selfFenceMargin)
                if failing {
                    logger.info("membership: lease renewed again")
                    failing = false
                    // The watch may hang on a connection that was cut meanwhile: start it again.
                    state.withLock { $0.watch?.cancel() }
                }
            } catch {
                if !failing {
                    let owned = holder.heldPartitions.map { configuration.partitions[$0] }
                    logger.warning(
                        "membership: cannot renew the lease (\(error)); \(owned.isEmpty ? "" : "serving \(owned.joined(separator: ", ")) only until it could expire, then stopping (self-fence)")"
                    )
                }
                failing = true
            }
        }
    }

    // MARK: The watch

    /// Follows the venue's keys: a range, then a watch from the revision after it; again from a
    /// range whenever the watch ends (a node died, the revision was compacted, the lease loop
    /// restarted it after a cut).
    private func watchLoop() async {
        while !Task.isCancelled && !state.withLock({ $0.leaving }) {
            do {
                let (revision, kvs) = try await etcd.range(prefix: root)
                state.withLock { state in
                    state.members = [:]
                    state.owners = [:]
                    for kv in kvs { Self.apply(.put(kv), to: &state, membersPrefix: membersPrefix, ownersPrefix: ownersPrefix) }
                    state.revision = revision
                }
                wake.yield()
            } catch {
                try? await Task.sleep(for: .milliseconds(300))
                continue
            }
            let from = state.withLock { $0.revision } + 1
            let watch = Task<Void, Never> { [self] in
                try? await etcd.watch(prefix: root, from: from) { events, revision in
                    self.state.withLock { state in
                        for event in events { Self.apply(event, to: &state, membersPrefix: membersPrefix, ownersPrefix: ownersPrefix) }
                        state.revision = max(state.revision, revision)
                    }
                    if !events.isEmpty { wake.yield() }
                }
            }
            state.withLock { $0.watch = watch }
            await withTaskCancellationHandler {
                await watch.value
            } onCancel: {
                watch.cancel()
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    private static func apply(_ event: EtcdEvent, to state: inout Keys, membersPrefix: String, ownersPrefix: String) {
        switch event {
        case .put(let kv):
            if kv.key.hasPrefix(membersPrefix) {
                state.members[kv.key] = kv
            } else if kv.key.hasPrefix(ownersPrefix) {
                state.owners[kv.key] = kv
            }
        case .delete(let key):
            state.members[key] = nil
            state.owners[key] = nil
        }
    }

    // MARK: Deciding

    /// Brings etcd and ``ownership`` in line with the live set: puts or deletes this member's key
    /// (as it can serve or not), claims each partition it wins and nobody holds, releases each it
    /// holds and no longer wins. The changes, and whether a request failed (then it runs again shortly).
    private func reconcile() async -> (changes: [State.Change], retry: Bool) {
        var changes: [State.Change] = []
        var retry = false
        let me = configuration.member
        let memberKey = membersPrefix + me
        let (lease, available, leaving) = state.withLock { ($0.lease, $0.available, $0.leaving) }
        guard let lease, !leaving else {
            for partition in holder.heldPartitions { if let change = holder.release(partition) { changes.append(change) } }
            return (changes, false)
        }
        let registered = state.withLock { $0.members[memberKey]?.lease == lease }
        do {
            if available, !registered {
                let revision = try await etcd.put(memberKey, me, lease: lease)
                state.withLock { $0.members[memberKey] = EtcdKeyValue(key: memberKey, value: me, createRevision: revision, lease: lease) }
            } else if !available, state.withLock({ $0.members[memberKey] != nil }) {
                try await etcd.delete(memberKey, ifLease: lease)
                state.withLock { $0.members[memberKey] = nil }
            }
        } catch {
            logger.warning("membership: cannot \(available ? "join" : "leave") the live set: \(error)")
            retry = true
        }
        let live = state.withLock { $0.members.values.map(\.value).sorted() }
        if let change = holder.setLive(live) { changes.append(change) }
        for (partition, name) in configuration.partitions.enumerated() {
            let key = ownersPrefix + name
            let winner = live.contains(me) ? configuration.winner(name, live) : nil
            let current = state.withLock { $0.owners[key] }
            do {
                if let current, current.lease == lease {
                    if winner == me {
                        if let change = holder.hold(partition, token: UInt64(current.createRevision)) { changes.append(change) }
                    } else {
                        // Stop serving first, then let the winner have it.
                        if let change = holder.release(partition) { changes.append(change) }
                        try await etcd.delete(key, ifLease: lease)
                        state.withLock { $0.owners[key] = nil }
                    }
                } else if current == nil, winner == me {
                    switch try await etcd.create(key, me, lease: lease) {
                    case .created(let revision):
                        state.withLock { $0.owners[key] = EtcdKeyValue(key: key, value: me, createRevision: revision, lease: lease) }
                        if let change = holder.hold(partition, token: UInt64(revision)) { changes.append(change) }
                    case .exists(let kv):
                        state.withLock { $0.owners[key] = kv }
                        if kv.lease == lease, let change = holder.hold(partition, token: UInt64(kv.createRevision)) {
                            changes.append(change)
                        } else if kv.lease != lease, let change = holder.release(partition) {
                            changes.append(change)
                        }
                    }
                } else if let change = holder.release(partition) {
                    changes.append(change)  // another member's, or nobody's and not this member's to claim
                }
            } catch {
                logger.warning("membership: partition \(name): \(error)")
                retry = true
            }
        }
        return (changes, retry)
    }
}
