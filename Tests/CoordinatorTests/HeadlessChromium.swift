import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// the browser reads commands on fd 3 and writes answers on fd 4, each JSON text ending in NUL),
/// so no WebSocket client is needed. For the live map's browser test.
final class HeadlessChromium {
    /// Debian's `chromium` (or `$CHROMIUM`), when installed.
    static let executable: String? = {
        if let path = ProcessInfo.processInfo.environment["CHROMIUM"] {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
                return "\(directory)/\(name)"
            }
        }
        return nil
    }()

    static let missingMessage =
        "chromium was not found on PATH (or at $CHROMIUM); install it: `apt-get install chromium` (scripts/setup does)"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let pid: pid_t
    private let commands: Int32
    private let answers: Int32
    private let profile: URL
    private var nextID = 0
    private var buffer: [UInt8] = []

    /// Starts the browser with an empty profile and a window of `width` × `height`.
    init(width: Int = 1280, height: Int = 800) throws {
        guard let executable = Self.executable else { throw Failure(description: Self.missingMessage) }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw Failure(description: "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        let arguments = [
            executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-extensions", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)",
            "about:blank",
        ]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        guard rc == 0 else {
            close(toBrowser[1])
            close(fromBrowser[0])
            throw Failure(description: "cannot run \(executable): \(String(cString: strerror(rc)))")
        }
        self.pid = pid
        commands = toBrowser[1]
        answers = fromBrowser[0]
        _ = fcntl(answers, F_SETFL, fcntl(answers, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(commands)
        close(answers)
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(at: profile)
    }

    /// Sends `method` and waits (up to `limit`) for its answer's `result`.
    @discardableResult
    func send(_ method: String, _ params: [String: Any] = [:], session: String? = nil, limit: Duration = .seconds(15)) async throws
        -> [String: Any]
    {
        nextID += 1
        let id = nextID
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard n > 0 else { throw Failure(description: "the browser closed its pipe") }
            written += n
        }
        let deadline = ContinuousClock.now + limit
        while true {
            while let end = buffer.firstIndex(of: 0) {
                let text = Data(buffer[..<end])
                buffer.removeSubrange(...end)
                guard let answer = try JSONSerialization.jsonObject(with: text) as? [String: Any], answer["id"] as? Int == id else {
                    continue
                }
                if let error = answer["error"] { throw Failure(description: "\(method): \(error)") }
                return answer["result"] as? [String: Any] ?? [:]
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = chunk.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer += chunk[..<n]
            } else if n == 0 {
                throw Failure(description: "the browser exited")
            } else {
                guard ContinuousClock.now < deadline else { throw Failure(description: "no answer to \(method) within \(limit)") }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    /// Opens `url` in a new tab; answers the session to address it.
    func open(_ url: String) async throws -> String {
        let target = try await send("Target.createTarget", ["url": url])
        guard let targetID = target["targetId"] as? String else { throw Failure(description: "no target for \(url)") }
        let attached = try await send("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        guard let session = attached["sessionId"] as? String else { throw Failure(description: "cannot attach to \(url)") }
        return session
    }

    /// Evaluates `expression` in the page; answers its value (JSON-compatible).
    func evaluate(_ expression: String, session: String) async throws -> Any? {
        let result = try await send("Runtime.evaluate", ["expression": expression, "returnByValue": true], session: session)
        return (result["result"] as? [String: Any])?["value"]
    }

    /// The page as a PNG.
    func screenshot(session: String) async throws -> Data {
        let result = try await send("Page.captureScreenshot", ["format": "png"], session: session)
        guard let text = result["data"] as? String, let data = Data(base64Encoded: text) else {
            throw Failure(description: "no screenshot")
        }
        return data
    }
}
