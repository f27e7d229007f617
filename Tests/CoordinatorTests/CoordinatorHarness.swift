import Coordinator
import Foundation
import Logging
import MQTT
import MosquittoTesting
import Simulator
import TestSupport
import Topology
import WireProtocol

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a coordinator in-process (a ``CoordinatorApplication``) or as the built `beaconfleet` binary.
func debug(_ text: String) {
    if ProcessInfo.processInfo.environment["COORDINATOR_TEST_DEBUG"] != nil {
        FileHandle.standardError.write(Data("[test] \(text)\n".utf8))
    }
}

enum CoordinatorHarness {
    static let museum = SharedData.packageRoot.appendingPathComponent("topology/museum", isDirectory: true)

    /// A coordinator application running in a task; stop with `stop`.
    struct InProcess {
        let application: CoordinatorApplication
        let task: Task<Void, any Error>
        var service: CoordinatorService { application.service }

        func stop() async {
            await application.triggerGracefulShutdown()
            _ = await task.result
        }
    }

    /// Starts a coordinator and waits for its own `online` status (not an earlier coordinator's
    /// retained one). `configure` adjusts the configuration first (engine tunables, planner, intervals).
    /// With `httpPort`, the HTTP server too, on 127.0.0.1 (requiring the configuration's `httpToken`, if any).
    static func start(
        broker: MosquittoBroker, topology: URL = museum, statePath: String? = nil, httpPort: Int? = nil,
        configure: (inout CoordinatorConfiguration) -> Void = { _ in }
    ) async throws -> InProcess {
        var logger = Logger(label: "test.coordinator")
        logger.logLevel = .error
        var configuration = try CoordinatorConfiguration(
            broker: broker.url, topologyDirectory: topology, statePath: statePath, http: httpPort.map { ("127.0.0.1", $0) },
            topics: try Topics())
        configure(&configuration)
        // Status times are written in milliseconds: a status of this coordinator says it started after this.
        let launched = Date().addingTimeInterval(-0.002)
        let application = try CoordinatorApplication(configuration: configuration, logger: logger)
        let task = Task { try await application.run() }
        debug("coordinator group started")
        // Online once the retained status says so.
        try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: try Topics().coordinatorStatus) { probe, messages in
            _ = try await withTimeout(.seconds(20), "the coordinator's online status") {
                for await message in messages {
                    guard let status = try? WireCoding.decode(CoordinatorStatus.self, from: message.payload, topic: message.topic),
                        status.state == .online, (status.started ?? .distantPast) >= launched
                    else { continue }
                    return true
                }
                return false
            }
        }
        debug("coordinator online")
        return InProcess(application: application, task: task)
    }

    /// Runs `body` with a fresh broker, a coordinator started on it and a client subscribed to every
    /// client's `regions` (`regions`: what the client receives); stops the coordinator afterwards.
    static func withRegionsReader(
        _ body: (_ coordinator: InProcess, _ client: MQTTClient, _ regions: AsyncStream<MQTTMessage>) async throws -> Void
    ) async throws {
        try await withMosquittoBroker { broker in
            let coordinator = try await start(broker: broker)
            try await withSubscribedClient(MQTTConfiguration(url: broker.url), to: try Topics().allClientRegions) { client, regions in
                try await body(coordinator, client, regions)
            }
            await coordinator.stop()
        }
    }

    /// What a `beaconfleet coordinator` child process keeps across its restarts: a fresh temporary
    /// directory with its state database and its log, and a loopback port held for its HTTP server.
    /// `release()` frees the port and removes the directory.
    struct ProcessFiles {
        let directory: URL
        let port: Int
        var state: String { directory.appendingPathComponent("state.sqlite").path }
        var log: URL { directory.appendingPathComponent("coordinator.log") }

        init(_ prefix: String) throws {
            directory = try makeTemporaryDirectory(prefix)
            port = try LoopbackPort.hold()
        }

        func release() {
            LoopbackPort.release(port)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Starts `beaconfleet coordinator` as a child process on `files`' state, log and HTTP port.
    static func launch(broker: MosquittoBroker, topology: URL = museum, files: ProcessFiles, extraArguments: [String] = []) throws
        -> Process
    {
        try launch(
            broker: broker, topology: topology, statePath: files.state, httpPort: files.port, log: files.log, extraArguments: extraArguments
        )
    }

    /// ``waitUntilServing(port:process:log:subscribed:)`` for a coordinator launched on `files`.
    static func waitUntilServing(_ files: ProcessFiles, process: Process, subscribed: Bool = true) async throws {
        try await waitUntilServing(port: files.port, process: process, log: files.log, subscribed: subscribed)
    }

    /// Starts `beaconfleet coordinator` as a child process.
    static func launch(
        broker: MosquittoBroker, topology: URL = museum, statePath: String, httpPort: Int, log: URL, extraArguments: [String] = []
    ) throws -> Process {
        guard let binary = BuiltProduct.beaconfleet else { throw CoordinatorError(BuiltProduct.missingMessage("beaconfleet")) }
        let process = Process()
        process.executableURL = binary
        process.arguments =
            [
                "coordinator", "--broker", broker.url.description, "--topology", topology.path, "--state", statePath,
                "--http", "127.0.0.1:\(httpPort)", "--log-level", "warning",
            ] + extraArguments
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return process
    }

    /// Waits until the launched coordinator's `/healthz` answers `200`: connected, and the broker
    /// acknowledged its subscriptions, so a report sent from now on is answered or, for a named
    /// coordinator, kept by the broker (`subscribed: false`: any answer, a `503` too). Up to 60 s,
    /// since a debug binary starting beside a loaded machine's other work (a release build, in one
    /// CI run) can take more than 20. A bound, not a measure of speed. On failure the error says
    /// whether the process is still running and ends with its log.
    static func waitUntilServing(port: Int, process: Process, log: URL, subscribed: Bool = true) async throws {
        do {
            try await withTimeout(.seconds(60), "GET /healthz answering \(subscribed ? "200" : "at all")") {
                while true {
                    if let (code, _, _) = try? await httpGet(port: port, "/healthz", headers: []), code == 200 || !subscribed { return }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        } catch {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            let state = process.isRunning ? "still running" : "exited with \(process.terminationStatus)"
            throw CoordinatorError(
                "\(error); the coordinator is \(state); its log ends:\n\(text.split(separator: "\n").suffix(20).joined(separator: "\n"))")
        }
    }

    /// GET `http://127.0.0.1:port/path`, retrying until it answers (or `limit` passes).
    static func get(port: Int, _ path: String, within limit: Duration = .seconds(40)) async throws -> (Int, Data) {
        let (code, _, body) = try await get(port: port, path, headers: [], within: limit)
        return (code, body)
    }

    /// GET with request `headers` (`Name: value` lines); answers the status, the response's header
    /// lines and the body.
    static func get(port: Int, _ path: String, headers: [String], within limit: Duration = .seconds(40)) async throws -> (
        Int, [String], Data
    ) {
        try await withTimeout(limit, "GET \(path)") {
            while true {
                if let answer = try? await httpGet(port: port, path, headers: headers) { return answer }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// A minimal HTTP/1.0 GET over a loopback socket (keeps FoundationNetworking out of the tests),
    /// on a thread of its own: its reads block, and the coordinator answers on the shared pool.
    private static func httpGet(port: Int, _ path: String, headers: [String]) async throws -> (Int, [String], Data) {
        try await onOwnThread { try blockingGet(port: port, path, headers: headers) }
    }

    private static func blockingGet(port: Int, _ path: String, headers: [String]) throws -> (Int, [String], Data) {
        guard let fd = LoopbackPort.connect(port) else { throw CoordinatorError("connection refused on \(port)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let extra = headers.map { $0 + "\r\n" }.joined()
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(extra)\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw CoordinatorError("send failed")
        }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            response += buffer[0..<n]
            // Stop once the whole body (by Content-Length) is in.
            let text = String(decoding: response, as: UTF8.self)
            if let split = text.range(of: "\r\n\r\n"),
                let line = text[..<split.lowerBound].split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }
                ),
                let length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)),
                text.utf8.distance(from: split.upperBound.samePosition(in: text.utf8)!, to: text.utf8.endIndex) >= length
            {
                break
            }
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let statusLine = text.split(separator: "\r\n").first, statusLine.split(separator: " ").count >= 2,
            let code = Int(statusLine.split(separator: " ")[1]), let split = text.range(of: "\r\n\r\n")
        else {
            throw CoordinatorError("malformed HTTP answer on \(port)")
        }
        let headerLines = text[..<split.lowerBound].split(separator: "\r\n").dropFirst().map(String.init)
        return (code, headerLines, Data(text[split.upperBound...].utf8))
    }

    /// A route through `stops` (node ids), joined by shortest paths on the walking graph.
    static func route(_ topology: Topology, through stops: [String]) throws -> [String] {
        let graph = try WalkGraph(topology: topology)
        var route: [String] = []
        for (a, b) in zip(stops, stops.dropFirst()) {
            guard let from = graph.node(id: a), let to = graph.node(id: b), let path = graph.shortestPath(from: from, to: to) else {
                throw CoordinatorError("no path \(a) → \(b)")
            }
            let ids = path.map { graph.nodes[$0].id }
            route += route.isEmpty ? ids : Array(ids.dropFirst())
        }
        return route
    }
}
