/// What can go wrong in a wake, named so that an app can log it.
public enum RegionSyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The transport failed (connect, subscribe, publish).
    case transport(String)
    /// The state could not be stored or read.
    case store(String)
    /// A `regions` payload was not a valid message.
    case invalidMessage(String)
    /// The wake's deadline came before this step.
    case deadline(String)

    public var description: String {
        switch self {
        case .transport(let text): "transport: \(text)"
        case .store(let text): "state store: \(text)"
        case .invalidMessage(let text): "regions message: \(text)"
        case .deadline(let step): "deadline reached before \(step)"
        }
    }
}
