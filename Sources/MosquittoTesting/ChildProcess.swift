import Foundation
import Synchronization

/// A child process started with `posix_spawn` and reaped with `waitpid`, so its exit is seen at once
/// (Foundation's `Process` on Linux reports exits through a run loop that test threads never run).
final class ChildProcess: Sendable {
    let pid: pid_t
    let program: String
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `program` with `arguments`; stdout and stderr go to `outputPath` (appended) or /dev/null.
    init(program: String, arguments: [String], outputPath: String? = nil) throws(MosquittoBrokerError) {
        self.program = program
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let output = outputPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The child must not inherit this thread's blocked or ignored signals (it would ignore SIGTERM).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptySet = sigset_t()
        sigemptyset(&emptySet)
        posix_spawnattr_setsigmask(&attributes, &emptySet)
        var defaultSet = sigset_t()
        sigemptyset(&defaultSet)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT] { sigaddset(&defaultSet, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaultSet)
        // A process group of its own: Ctrl-C in a terminal signals the whole foreground group, and the
        // parent wants to stop its clients gracefully before it stops the child (`beaconfleet demo`).
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw .setupFailed("cannot run \(program): \(String(cString: strerror(rc)))") }
        self.pid = pid
    }

    /// The exit status (or 128 + signal) once the process has ended; reaps it.
    var terminationStatus: Int32? {
        exitStatus.withLock { cached in
            if let cached { return cached }
            var status: Int32 = 0
            let rc = waitpid(pid, &status, WNOHANG)
            guard rc == pid else {
                if rc == -1 && errno == ECHILD { cached = -1 }  // reaped elsewhere
                return cached
            }
            let signal = status & 0x7F
            cached = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            return cached
        }
    }

    var isRunning: Bool { terminationStatus == nil }

    func signal(_ signal: Int32) {
        if isRunning { _ = kill(pid, signal) }
    }

    /// Waits (polling every few milliseconds) until the process ends; returns its status.
    @discardableResult
    func waitForExit() async -> Int32 {
        while true {
            if let status = terminationStatus { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits, blocking the calling thread, until the process ends; returns its status.
    @discardableResult
    func waitForExitBlocking() -> Int32 {
        while true {
            if let status = terminationStatus { return status }
            usleep(2_000)
        }
    }
}
