import Foundation
public import HomeAssistant
public import Topology
public import WireProtocol

/// Which clients changed, for a watcher that shows them elsewhere (the ``HomeAssistantBridge``):
/// noted as the core commits, taken by the watcher at its own pace. Noting costs a set insertion
/// per client estimated, published or written; nothing while nobody watches.
extension CoordinatorCore: HomeAssistantClientSource {
    /// Starts noting changed clients (every known client counts as changed at first, so the
    /// watcher shows those resumed from the state store too).
    public func watchClientChanges() {
        guard changedClients == nil else { return }
        engine.tracksTouched = true
        changedClients = Set(engine.clientIDs)
    }

    /// The clients estimated, published, written or forgotten since the last call.
    public func takeChangedClients() -> Set<String> {
        defer { changedClients = [] }
        return changedClients ?? []
    }

    /// Where each of `ids` is, in order (`nil`: not known, e.g. expired): their snapshots without
    /// the monitored sets (`regions` empty), which a watcher showing positions does not need and
    /// which cost most of a snapshot, so that the core is held as briefly as possible.
    public func placements(_ ids: [String]) -> [ClientSnapshot?] { engine.placements(ids) }

    /// The topology in use (it changes on reload).
    public var topology: Topology { engine.venue.topology }

    func noteChanges(_ touched: [Int32], _ outputs: [CoordinatorOutput], _ changed: [StoredClient], _ removed: [String]) {
        for id in engine.ids(of: touched) { changedClients?.insert(id) }
        for output in outputs { changedClients?.insert(output.client) }
        for client in changed { changedClients?.insert(client.id) }
        for id in removed { changedClients?.insert(id) }
    }
}
