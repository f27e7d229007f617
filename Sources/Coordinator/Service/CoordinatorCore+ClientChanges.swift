public import Topology

/// Which clients changed, for a watcher that shows them elsewhere (Home Assistant): noted as the
/// core commits, taken by the watcher at its own pace. Noting costs a set insertion per client
/// estimated, published or written; nothing while nobody watches.
extension CoordinatorCore {
    /// Starts noting changed clients (every known client counts as changed at first, so the
    /// watcher shows those resumed from the state store too).
    public func watchClientChanges() {
        guard changedClients == nil else { return }
        engine.estimated = []
        changedClients = Set(engine.table.byID.keys)
    }

    /// The clients estimated, published, written or forgotten since the last call.
    public func takeChangedClients() -> Set<String> {
        defer { changedClients = [] }
        return changedClients ?? []
    }

    /// The snapshots of `ids`, in order (`nil`: not known, e.g. expired).
    public func clients(_ ids: some Collection<String>) -> [ClientSnapshot?] {
        ids.map { engine.snapshot(of: $0) }
    }

    /// The topology in use (it changes on reload).
    public var topology: Topology { engine.venue.topology }

    func noteChanges(_ outputs: [CoordinatorOutput], _ changed: [StoredClient], _ removed: [String]) {
        if let estimated = engine.estimated, !estimated.isEmpty {
            for index in estimated {
                if let id = engine.table.records[Int(index)]?.id { changedClients?.insert(id) }
            }
            engine.estimated!.removeAll(keepingCapacity: true)
        }
        for output in outputs { changedClients?.insert(output.client) }
        for client in changed { changedClients?.insert(client.id) }
        for id in removed { changedClients?.insert(id) }
    }
}
