public import WireProtocol

/// A message the coordinator decided to publish; the service encodes and sends it.
public enum CoordinatorOutput: Sendable, Equatable {
    /// A new monitored set for a client (retained, QoS 1).
    case regions(client: String, RegionsMessage)
    /// An enter, exit or moved event (QoS 1, not retained).
    case event(client: String, ClientEvent)
    /// Clear the client's retained `regions` (an empty retained payload): the client expired.
    case clearRegions(client: String)

    /// The client the output is about.
    public var client: String {
        switch self {
        case .regions(let client, _), .event(let client, _), .clearRegions(let client): client
        }
    }
}
