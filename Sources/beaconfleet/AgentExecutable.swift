#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hands `beaconfleet agent …` to the `beaconfleet-agent` executable next to this one.
///
/// The gateway agent must stay within 20 MB of resident memory on a Raspberry Pi. This tool links
/// every role (the coordinator's SQLite, HTTP server and planner among them), and merely loading
/// that code costs more than the agent itself needs; `beaconfleet-agent` links only the agent and,
/// in release builds, the Swift runtime statically. Like `git` with its `git-*` helpers, the tool
/// replaces itself (`execv`, same process id, so signals and exit codes are the agent's own) before
/// parsing anything. When the helper is missing (a build of the `beaconfleet` product alone) the
/// agent runs in this process instead, with the same flags and behaviour.
enum AgentExecutable {
    /// The helper's file name, looked up in this executable's directory.
    static let name = "beaconfleet-agent"

    /// Execs the helper for `beaconfleet agent …` when it exists; returns otherwise.
    static func replaceProcessIfRequested(arguments: [String]) {
        guard arguments.count >= 2, arguments[1] == "agent", let path = helperPath() else { return }
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments.dropFirst()).map { strdup($0) }
        argv.append(nil)
        execv(path, &argv)
        // Only reached when exec failed (the file vanished or is not executable): run in process.
        for pointer in argv { free(pointer) }
    }

    /// `beaconfleet-agent` beside the running executable, if it is there and executable.
    static func helperPath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let executable = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = executable.lastIndex(of: "/") else { return nil }
        let candidate = String(executable[...slash]) + name
        return access(candidate, X_OK) == 0 ? candidate : nil
    }
}
