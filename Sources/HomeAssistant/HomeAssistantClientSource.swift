public import Topology
public import WireProtocol

/// Where the ``HomeAssistantBridge`` reads its clients: which changed, where each is, and the
/// venue. The coordinator's core is one; each call should hold it only briefly, since the bridge
/// calls at its own pace, a batch at a time.
public protocol HomeAssistantClientSource: Sendable {
    /// Starts noting changed clients; every client known then counts as changed.
    func watchClientChanges() async
    /// The clients that changed (or were forgotten) since the last call.
    func takeChangedClients() async -> Set<String>
    /// Where each of `ids` is, in order; `nil` for a client no longer known (expired or merged).
    func placements(_ ids: [String]) async -> [ClientSnapshot?]
    /// The venue in use (it changes on reload).
    var topology: Topology { get async }
}
