public import Foundation

/// A three-node etcd cluster on loopback ports, started by `scripts/etcd-cluster` in its own
/// temporary directory: what partitioned coordinators decide membership and ownership in. The
/// script's watchdog SIGKILLs the nodes within about a second of this process ending, also after a crash.
public final class EtcdCluster: Sendable {
    /// The directory holding the nodes' data and logs.
    public let directory: URL
    /// The value of `beaconfleet coordinator --coordination`: `etcd://127.0.0.1:P1,…`.
    public let url: String
    private let script: URL

    /// Whether `etcd` is installed (`scripts/setup` installs `etcd-server`).
    public static var isAvailable: Bool {
        ["/usr/bin/etcd", "/usr/local/bin/etcd"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts the three nodes with `script` (the package's `scripts/etcd-cluster`) and waits until
    /// each answers. Throws ``EtcdClusterError/programMissing`` when `etcd` is not installed: a test
    /// that needs etcd fails then, it is never skipped.
    public static func start(script: URL) async throws(EtcdClusterError) -> EtcdCluster {
        guard isAvailable else { throw .programMissing }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-etcd-\(UUID().uuidString.prefix(8))")
        let output = try await run(script, ["start", directory.path])
        guard let url = output.split(separator: "\n").last.map(String.init), url.hasPrefix("etcd://") else {
            throw .unexpectedOutput(command: "start", output: output)
        }
        return EtcdCluster(directory: directory, url: url, script: script)
    }

    private init(directory: URL, url: String, script: URL) {
        self.directory = directory
        self.url = url
        self.script = script
    }

    /// The node (1…3) that leads now.
    public func leader() async throws(EtcdClusterError) -> Int {
        let output = try await Self.run(script, ["leader", directory.path])
        guard let node = Int(output) else { throw .unexpectedOutput(command: "leader", output: output) }
        return node
    }

    /// SIGKILLs node `node` (1…3), as a crash or a power cut would.
    public func kill(node: Int) async throws(EtcdClusterError) {
        _ = try await Self.run(script, ["kill", "\(node)", directory.path])
    }

    /// Stops every node and removes the directory.
    public func stop() async {
        _ = try? await Self.run(script, ["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs the script to its end; its output goes through a file, not a pipe, which the nodes
    /// started in the background would inherit and keep open.
    private static func run(_ script: URL, _ arguments: [String]) async throws(EtcdClusterError) -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("etcd-cluster-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let process: ChildProcess
        do {
            process = try ChildProcess(
                program: "/usr/bin/env", arguments: ["ETCD_CLUSTER_OWNER_PID=\(getpid())", script.path] + arguments, outputPath: outputPath)
        } catch {
            throw .scriptFailed(command: arguments.joined(separator: " "), status: -1, output: "\(error)")
        }
        let status = await process.waitForExit()
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw .scriptFailed(command: arguments.joined(separator: " "), status: status, output: output)
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why an ``EtcdCluster`` could not be started or driven.
public enum EtcdClusterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `etcd` is not installed (`/usr/bin/etcd`, `/usr/local/bin/etcd`).
    case programMissing
    /// `scripts/etcd-cluster COMMAND` exited with `status` (-1: it could not be started), printing `output`.
    case scriptFailed(command: String, status: Int32, output: String)
    /// `scripts/etcd-cluster COMMAND` succeeded but printed something other than what it prints.
    case unexpectedOutput(command: String, output: String)

    public var description: String {
        switch self {
        case .programMissing:
            "etcd not found in /usr/bin or /usr/local/bin; run scripts/setup (installs Debian's etcd-server)"
        case .scriptFailed(let command, let status, let output):
            "scripts/etcd-cluster \(command) failed (status \(status)): \(output)"
        case .unexpectedOutput(let command, let output):
            "scripts/etcd-cluster \(command) printed an unexpected answer: \(output)"
        }
    }
}
