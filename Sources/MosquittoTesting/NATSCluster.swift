public import Foundation
public import MQTT

/// A three-node NATS cluster (JetStream and an MQTT listener on each node, on loopback ports) started
/// by `scripts/nats-cluster` in its own temporary directory: the tested "beyond one broker" setup.
/// The script's watchdog SIGKILLs the nodes within about a second of this process ending, also after a crash.
public final class NATSCluster: Sendable {
    /// The directory holding the nodes' configurations, logs and stores.
    public let directory: URL
    /// The MQTT URLs of nodes 1, 2 and 3.
    public let urls: [BrokerURL]
    private let script: URL

    /// Whether `nats-server` is installed (`scripts/setup` installs it).
    public static var isAvailable: Bool {
        ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    /// What to do when `nats-server` is missing.
    public static let missingMessage = "nats-server was not found; run scripts/setup (apt-get install nats-server)"

    /// Starts the three nodes with `script` (the package's `scripts/nats-cluster`) and waits until
    /// each one's MQTT listener takes a QoS 1 publish.
    public static func start(script: URL) async throws(MosquittoBrokerError) -> NATSCluster {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-nats-\(UUID().uuidString.prefix(8))")
        let output = try await run(script, ["start", directory.path])
        let urls = output.split(separator: "\n").compactMap { BrokerURL(String($0)) }
        guard urls.count == 3 else { throw .setupFailed("scripts/nats-cluster start printed: \(output)") }
        return NATSCluster(directory: directory, urls: urls, script: script)
    }

    private init(directory: URL, urls: [BrokerURL], script: URL) {
        self.directory = directory
        self.urls = urls
        self.script = script
    }

    /// SIGKILLs node `node` (1…3), as a crash or a power cut would.
    public func kill(node: Int) async throws(MosquittoBrokerError) {
        _ = try await Self.run(script, ["kill", "\(node)", directory.path])
    }

    /// Starts node `node` again (same ports and store) and waits until it is ready.
    public func restart(node: Int) async throws(MosquittoBrokerError) {
        _ = try await Self.run(script, ["restart", "\(node)", directory.path])
    }

    /// Stops every node and removes the directory.
    public func stop() async {
        _ = try? await Self.run(script, ["stop", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// Node `node`'s log (1…3), for failure messages.
    public func log(node: Int) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("n\(node).log"), encoding: .utf8)) ?? ""
    }

    /// Runs the script to its end; its output (stdout and stderr) goes through a file, not a pipe,
    /// which the nodes started in the background would inherit and keep open.
    private static func run(_ script: URL, _ arguments: [String]) async throws(MosquittoBrokerError) -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("nats-cluster-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let process = try ChildProcess(
            program: "/usr/bin/env", arguments: ["NATS_CLUSTER_OWNER_PID=\(getpid())", script.path] + arguments, outputPath: outputPath)
        let status = await process.waitForExit()
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else {
            throw .setupFailed("scripts/nats-cluster \(arguments.joined(separator: " ")) failed (status \(status)): \(output)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
