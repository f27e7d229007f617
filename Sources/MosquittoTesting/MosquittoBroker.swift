public import Foundation
public import MQTT
import Synchronization

/// A real `mosquitto` broker in a child process on a free loopback port, for tests and `beaconfleet demo`.
///
/// ```swift
/// let broker = try await MosquittoBroker.start()
/// defer { broker.kill() }                 // or `await broker.stop()`
/// let client = try MQTTClient(url: broker.url)
/// ```
///
/// The configuration is generated in a fresh temporary directory (removed when the broker object goes
/// away): a listener on 127.0.0.1, anonymous access or a password file made with `mosquitto_passwd`,
/// an optional TLS listener, an optional ACL file, a raised `max_queued_messages`, and persistence off
/// unless asked for. A watchdog process kills the broker if this process dies without stopping it, so no
/// broker outlives a crashed test run.
public final class MosquittoBroker: Sendable {
    /// What the generated broker configuration contains.
    public struct Configuration: Sendable {
        /// User name → password. When non-empty, a password file is made and anonymous access is refused.
        public var users: [String: String]
        /// Allow clients without a user name; defaults to `users.isEmpty`.
        public var allowAnonymous: Bool?
        /// Adds a TLS listener on a second free port with these files.
        public var tls: TLSListener?
        /// A mosquitto ACL file (`user …` / `topic read|write|readwrite …` / `pattern …`).
        public var aclFile: String?
        /// Messages the broker queues per client (in flight included); mosquitto's default is 1000.
        public var maxQueuedMessages: Int
        /// Keep retained messages and sessions in a database in the broker's directory across restarts.
        public var persistence: Bool
        /// Further configuration lines, appended as they are.
        public var extraConfiguration: [String]
        /// How long to wait for the broker to accept connections.
        public var startTimeout: Duration

        /// Anonymous plain listener, `max_queued_messages` 1,000,000, no persistence.
        public init(
            users: [String: String] = [:], allowAnonymous: Bool? = nil, tls: TLSListener? = nil, aclFile: String? = nil,
            maxQueuedMessages: Int = 1_000_000, persistence: Bool = false, extraConfiguration: [String] = [],
            startTimeout: Duration = .seconds(30)
        ) {
            self.users = users
            self.allowAnonymous = allowAnonymous
            self.tls = tls
            self.aclFile = aclFile
            self.maxQueuedMessages = maxQueuedMessages
            self.persistence = persistence
            self.extraConfiguration = extraConfiguration
            self.startTimeout = startTimeout
        }
    }

    /// The files of the broker's TLS listener (PEM).
    public struct TLSListener: Sendable {
        /// The broker's certificate (its subject alternative names should cover `localhost`/127.0.0.1).
        public var certificateFile: String
        /// The broker certificate's key.
        public var keyFile: String
        /// The CA that signs client certificates; needed with `requireClientCertificate`.
        public var caFile: String?
        /// Refuse clients without a certificate signed by `caFile`.
        public var requireClientCertificate: Bool

        /// A TLS listener with these files.
        public init(certificateFile: String, keyFile: String, caFile: String? = nil, requireClientCertificate: Bool = false) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.caFile = caFile
            self.requireClientCertificate = requireClientCertificate
        }
    }

    /// The configuration the broker was started with.
    public let configuration: Configuration
    /// The plain listener's port on 127.0.0.1.
    public let port: Int
    /// The TLS listener's port, when one was configured.
    public let tlsPort: Int?
    /// The temporary directory holding `mosquitto.conf`, the password file and `mosquitto.log`.
    public let directory: URL

    private struct Processes {
        var broker: ChildProcess?
        var watchdog: ChildProcess?
    }
    private let processes = Mutex(Processes())

    /// `mqtt://127.0.0.1:port` (no credentials).
    public var url: BrokerURL { BrokerURL(host: "127.0.0.1", port: port) }

    /// `mqtts://localhost:tlsPort`, when a TLS listener was configured.
    public var tlsURL: BrokerURL? { tlsPort.map { BrokerURL(host: "localhost", port: $0, usesTLS: true) } }

    /// The plain URL logging in as `username` with `password`.
    public func url(username: String, password: String) -> BrokerURL {
        url.withCredentials(username: username, password: password)
    }

    /// The broker's process id while it runs.
    public var processIdentifier: Int32? {
        processes.withLock { $0.broker.flatMap { $0.isRunning ? $0.pid : nil } }
    }

    /// Whether the broker process is running.
    public var isRunning: Bool { processIdentifier != nil }

    /// What the broker has logged so far.
    public var log: String {
        (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
    }

    private var logFile: URL { directory.appendingPathComponent("mosquitto.log") }
    private var configurationFile: URL { directory.appendingPathComponent("mosquitto.conf") }

    private init(configuration: Configuration, port: Int, tlsPort: Int?, directory: URL) {
        self.configuration = configuration
        self.port = port
        self.tlsPort = tlsPort
        self.directory = directory
    }

    /// Starts a broker on a free loopback port and returns once it accepts connections.
    public static func start(_ configuration: Configuration = Configuration()) async throws(MosquittoBrokerError) -> MosquittoBroker {
        guard let program = Self.locate("mosquitto") else { throw .programMissing("mosquitto") }
        var lastError: MosquittoBrokerError?
        // The ports are reserved (``LoopbackPort``), but a mosquitto that binds without SO_REUSEADDR
        // would find them in use: retry with fresh ones rather than fail on a port.
        for _ in 0..<3 {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("beaconfleet-mosquitto-\(UUID().uuidString)")
            let port = try LoopbackPort.hold()
            let tlsPort: Int?
            do {
                tlsPort = configuration.tls == nil ? nil : try LoopbackPort.hold()
            } catch {
                LoopbackPort.release(port)
                throw error
            }
            let broker = MosquittoBroker(configuration: configuration, port: port, tlsPort: tlsPort, directory: directory)
            do {
                try broker.writeConfiguration()
                try await broker.launch(program: program)
                return broker
            } catch {
                lastError = error
                if case .exited(_, let log) = error, log.contains("in use") { continue }
                throw error
            }
        }
        throw lastError!
    }

    /// Starts the broker again on the same ports (after ``stop()`` or ``kill()``), for outage tests.
    public func restart() async throws(MosquittoBrokerError) {
        guard !isRunning else { return }
        guard let program = Self.locate("mosquitto") else { throw .programMissing("mosquitto") }
        try await launch(program: program)
    }

    /// Stops the broker: SIGTERM, then SIGKILL if it has not exited after `grace`. Waits for the exit.
    public func stop(grace: Duration = .seconds(5)) async {
        if let process = processes.withLock({ $0.broker }) {
            process.signal(SIGTERM)
            let deadline = ContinuousClock.now + grace
            while process.isRunning && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            process.signal(SIGKILL)
            await process.waitForExit()
        }
        stopWatchdog()
    }

    /// Kills the broker abruptly (SIGKILL): no goodbye to clients, which see a lost connection. Waits for the exit.
    public func kill() {
        if let process = processes.withLock({ $0.broker }) {
            process.signal(SIGKILL)
            process.waitForExitBlocking()
        }
        stopWatchdog()
    }

    deinit {
        let processes = self.processes.withLock { $0 }
        for process in [processes.broker, processes.watchdog].compactMap({ $0 }) {
            process.signal(SIGKILL)
            process.waitForExitBlocking()
        }
        try? FileManager.default.removeItem(at: directory)
        LoopbackPort.release(port)
        if let tlsPort { LoopbackPort.release(tlsPort) }
    }

    // MARK: Launching

    private func launch(program: String) async throws(MosquittoBrokerError) {
        let process = try ChildProcess(program: program, arguments: ["-c", configurationFile.path], outputPath: logFile.path)
        processes.withLock { $0.broker = process }
        startWatchdog(brokerPID: process.pid)

        let deadline = ContinuousClock.now + configuration.startTimeout
        let ports = [port] + (tlsPort.map { [$0] } ?? [])
        while ContinuousClock.now < deadline {
            if let status = process.terminationStatus {
                stopWatchdog()
                throw .exited(status: status, log: self.log)
            }
            if ports.allSatisfy(LoopbackPort.accepts) { return }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // A starved process (every thread busy elsewhere) may wake only after the deadline:
        // look once more before giving up on a broker that is in fact ready.
        if process.terminationStatus == nil, ports.allSatisfy(LoopbackPort.accepts) { return }
        kill()
        throw .notReady(port: port, log: self.log)
    }

    /// A shell that kills the broker when this process is gone (crash, SIGKILL, failed test run),
    /// and exits by itself when the broker does.
    private func startWatchdog(brokerPID: Int32) {
        let script = "while kill -0 \"$0\" 2>/dev/null && kill -0 \"$1\" 2>/dev/null; do sleep 1; done; kill -9 \"$1\" 2>/dev/null"
        guard let watchdog = try? ChildProcess(program: "/bin/sh", arguments: ["-c", script, String(getpid()), String(brokerPID)]) else {
            return
        }
        processes.withLock { $0.watchdog = watchdog }
    }

    private func stopWatchdog() {
        guard
            let watchdog = processes.withLock({ state in
                defer { state.watchdog = nil }
                return state.watchdog
            })
        else { return }
        watchdog.signal(SIGKILL)
        watchdog.waitForExitBlocking()
    }

    private func writeConfiguration() throws(MosquittoBrokerError) {
        let configuration = self.configuration
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .setupFailed("cannot create \(directory.path): \(error)")
        }
        var lines = [
            "# Generated by BeaconFleet's MosquittoBroker.",
            "per_listener_settings false",
            "listener \(port) 127.0.0.1",
            "allow_anonymous \(configuration.allowAnonymous ?? configuration.users.isEmpty)",
            "max_queued_messages \(configuration.maxQueuedMessages)",
            "max_inflight_messages 0",
            "set_tcp_nodelay true",
            "log_dest file \(logFile.path)",
            "log_type error",
            "log_type warning",
            "log_type notice",
            "log_type information",
            "connection_messages true",
            "log_timestamp true",
        ]
        if getuid() == 0 {
            lines.append("user root")  // otherwise mosquitto drops to user 'mosquitto', which cannot read this directory
        }
        if configuration.persistence {
            lines += ["persistence true", "persistence_location \(directory.path)/", "autosave_interval 1"]
        } else {
            lines.append("persistence false")
        }
        if !configuration.users.isEmpty {
            let passwordFile = directory.appendingPathComponent("passwords")
            try makePasswordFile(passwordFile, users: configuration.users)
            lines.append("password_file \(passwordFile.path)")
        }
        if let aclFile = configuration.aclFile {
            guard FileManager.default.fileExists(atPath: aclFile) else { throw .fileMissing(role: "ACL file", path: aclFile) }
            lines.append("acl_file \(aclFile)")
        }
        if let tls = configuration.tls, let tlsPort {
            for (role, path) in [("certificate file", tls.certificateFile), ("key file", tls.keyFile), ("CA file", tls.caFile)] {
                if let path, !FileManager.default.fileExists(atPath: path) { throw .fileMissing(role: "TLS \(role)", path: path) }
            }
            lines += ["listener \(tlsPort) 127.0.0.1", "certfile \(tls.certificateFile)", "keyfile \(tls.keyFile)"]
            if let ca = tls.caFile { lines.append("cafile \(ca)") }
            lines.append("require_certificate \(tls.requireClientCertificate)")
        }
        lines += configuration.extraConfiguration
        do {
            try (lines.joined(separator: "\n") + "\n").write(to: configurationFile, atomically: true, encoding: .utf8)
        } catch {
            throw .setupFailed("cannot write \(configurationFile.path): \(error)")
        }
    }

    private func makePasswordFile(_ file: URL, users: [String: String]) throws(MosquittoBrokerError) {
        guard let tool = Self.locate("mosquitto_passwd") else { throw .programMissing("mosquitto_passwd") }
        for (index, (user, password)) in users.sorted(by: { $0.key < $1.key }).enumerated() {
            let process = try ChildProcess(program: tool, arguments: (index == 0 ? ["-c"] : []) + ["-b", file.path, user, password])
            let status = process.waitForExitBlocking()
            guard status == 0 else {
                throw .setupFailed("mosquitto_passwd failed for user '\(user)' (status \(status))")
            }
        }
    }

    /// The path of `program` on `PATH`, or in the sbin directories Debian installs mosquitto to.
    static func locate(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/bin"]
        for directory in directories {
            let candidate = directory + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
