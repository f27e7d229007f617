import Coordinator
import Foundation
import MosquittoTesting

/// The release `beaconfleet coordinator` binary running in a process of its own (so its memory and
/// CPU are its own), optionally pinned to CPUs with `taskset`, with what the benchmarks read of it:
/// its resident set from /proc and its counters from `/metrics`.
final class CoordinatorProcess: @unchecked Sendable {
    /// The child's process id (`taskset` execs the coordinator, so it is the coordinator's).
    let pid: Int32
    /// The loopback port its `/metrics` is served on.
    let httpPort: Int
    private let process: Process

    /// The release binary this checkout builds (`swift build -c release --product beaconfleet`);
    /// `BEACONFLEET_BINARY` names another.
    static func binary(root: URL) -> URL {
        if let path = ProcessInfo.processInfo.environment["BEACONFLEET_BINARY"] { return URL(fileURLWithPath: path) }
        return root.appendingPathComponent(".build/release/beaconfleet")
    }

    /// Starts `beaconfleet coordinator` on `broker` with `topology`, serving HTTP on `httpPort`, and
    /// waits until `/metrics` answers. With `cpus` (e.g. "1") it runs under `taskset -c cpus`.
    init(
        binary: URL, broker: String, topology: URL, httpPort: Int, queueLimit: Int, cpus: String? = nil, extraArguments: [String] = []
    ) async throws {
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CoordinatorError("no coordinator binary at \(binary.path): build it with `swift build -c release --product beaconfleet`")
        }
        let arguments =
            [
                "coordinator", "--broker", broker, "--topology", topology.path, "--http", "127.0.0.1:\(httpPort)", "--queue-limit",
                "\(queueLimit)", "--log-level", "warning",
            ] + extraArguments
        let process = Process()
        if let cpus {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", cpus, binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        try process.run()
        self.process = process
        self.pid = process.processIdentifier
        self.httpPort = httpPort
        let deadline = ContinuousClock.now + .seconds(30)
        while Self.get("/metrics", port: httpPort) == nil {
            guard process.isRunning else { throw CoordinatorError("the coordinator exited with status \(process.terminationStatus)") }
            guard ContinuousClock.now < deadline else {
                process.terminate()
                throw CoordinatorError("the coordinator did not serve /metrics on \(httpPort) within 30 s")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Its resident set in bytes (`VmRSS` of /proc/PID/status), `nil` once it is gone.
    var residentBytes: Int? { Self.residentBytes(of: pid) }

    /// Process `pid`'s resident set in bytes (`VmRSS` of /proc/PID/status), `nil` once it is gone.
    static func residentBytes(of pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// The CPUs it may run on, as `taskset -p` says them (e.g. "1"), to show the pinning took.
    var affinity: String { Self.affinity(of: pid) }

    /// The CPUs process `pid` may run on (e.g. "0" or "0,1"), "?" when `taskset` cannot say.
    static func affinity(of pid: Int32) -> String {
        guard let text = try? taskset(["-cp", "\(pid)"]), let list = text.split(separator: ":").last else { return "?" }
        return list.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `/usr/bin/taskset arguments` and answers what it printed; throws when it fails.
    static func taskset(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CoordinatorError("taskset \(arguments.joined(separator: " ")) failed") }
        return output
    }

    /// The sum of the samples of `metric` in `/metrics` whose labels contain `labels` (e.g.
    /// `kind="sighting"`); `nil` when `/metrics` did not answer or has no such sample.
    func metric(_ metric: String, labels: String? = nil) -> Double? {
        guard let text = Self.get("/metrics", port: httpPort) else { return nil }
        return Self.sample(metric, labels: labels, in: text)
    }

    /// The sum of the samples named `metric` (with `labels` among theirs) in a Prometheus text exposition.
    static func sample(_ metric: String, labels: String?, in text: String) -> Double? {
        var total: Double?
        for line in text.split(separator: "\n") where line.hasPrefix(metric) && !line.hasPrefix("#") {
            let rest = line.dropFirst(metric.count)
            guard let first = rest.first, first == " " || first == "{" else { continue }
            if let labels, !(first == "{" && rest.contains(labels)) { continue }
            guard let value = rest.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
            total = (total ?? 0) + value
        }
        return total
    }

    /// Ends it with SIGTERM (SIGKILL after 10 s) and waits.
    func stop() {
        guard process.isRunning else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }

    /// The body of `GET path` on 127.0.0.1:`port` (HTTP/1.0, read to the end), `nil` on any failure
    /// or a status other than 200.
    static func get(_ path: String, port: Int) -> String? {
        guard let fd = LoopbackPort.connect(port) else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }
        // Read to the end of the body its Content-Length announces (or to the close without one).
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var expected: Int?
        let separator = Array("\r\n\r\n".utf8)
        var headerEnd: Int?
        while expected.map({ response.count < $0 }) ?? true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { return nil }
            if n == 0 { break }
            response += buffer[0..<n]
            if headerEnd == nil, let end = response.indices.dropLast(3).first(where: { response[$0..<($0 + 4)].elementsEqual(separator) }) {
                headerEnd = end + 4
                let head = String(decoding: response[..<end], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                    let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
                {
                    expected = end + 4 + length
                }
            }
        }
        guard let headerEnd, response.starts(with: Array("HTTP/1.1 200".utf8)) || response.starts(with: Array("HTTP/1.0 200".utf8)) else {
            return nil
        }
        return String(decoding: response[headerEnd...], as: UTF8.self)
    }
}
