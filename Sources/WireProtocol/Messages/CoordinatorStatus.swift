public import Foundation

/// `P/v1/coordinator/status` (retained, QoS 1): the coordinator's presence, also its last will.
public struct CoordinatorStatus: VersionedPayload, Equatable {
    public enum State: String, Codable, Sendable { case online, offline }
    public var v: Int = 1
    public var state: State
    /// The topology's name and a revision that changes with every reload.
    public var topology: TopologyInfo?
    /// Active clients.
    public var clients: Int?
    public var version: String?
    public var started: Date?
    public var time: Date?
    /// The last topology reload error, when the coordinator kept the previous topology.
    public var error: String?
    /// The broker and MQTT version of the current connection (absent before the first one).
    public var mqtt: BrokerConnection?

    public struct TopologyInfo: Codable, Sendable, Equatable {
        public var name: String
        public var revision: String
        public init(name: String, revision: String) {
            self.name = name
            self.revision = revision
        }
    }

    public init(
        state: State, topology: TopologyInfo? = nil, clients: Int? = nil, version: String? = nil, started: Date? = nil, time: Date? = nil,
        error: String? = nil
    ) {
        self.state = state
        self.topology = topology
        self.clients = clients
        self.version = version
        self.started = started
        self.time = time
        self.error = error
    }
}
