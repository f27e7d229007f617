/// Why a ``MosquittoBroker`` could not be started.
public enum MosquittoBrokerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `mosquitto` (or `mosquitto_passwd`) program is not installed.
    case programMissing(String)
    /// A file the configuration names does not exist.
    case fileMissing(role: String, path: String)
    /// Writing the configuration, password file or log failed.
    case setupFailed(String)
    /// `mosquitto` exited before accepting connections; `log` is what it printed.
    case exited(status: Int32, log: String)
    /// `mosquitto` did not accept connections on the port within the time allowed.
    case notReady(port: Int, log: String)

    public var description: String {
        switch self {
        case .programMissing(let name):
            "'\(name)' not found on PATH or in /usr/sbin; run scripts/setup (installs the mosquitto package)"
        case .fileMissing(let role, let path):
            "mosquitto broker \(role) \(path) does not exist"
        case .setupFailed(let reason):
            "could not prepare the mosquitto broker: \(reason)"
        case .exited(let status, let log):
            "mosquitto exited with status \(status) before accepting connections:\n\(log)"
        case .notReady(let port, let log):
            "mosquitto did not accept connections on 127.0.0.1:\(port) in time:\n\(log)"
        }
    }
}
