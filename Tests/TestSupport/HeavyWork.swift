import Foundation

/// Runs CPU-heavy synchronous test work on a thread of its own instead of the cooperative pool.
///
/// Swift Testing runs every test in one process on a cooperative pool as wide as the machine has
/// cores (2 in CI). A synchronous test that computes for half a minute holds one of those threads
/// the whole time; two of them stall every broker test beside them (their timers, their MQTT
/// streams, the coordinator they run), which then miss deadlines that have nothing to do with
/// what they test. On a thread of its own the work is scheduled by the kernel, which shares the
/// cores fairly. The task stays the same, so `#expect` and `#require` inside `body` report as usual.
public func heavyWork<T>(_ body: () throws -> T) async rethrows -> T {
    try await withTaskExecutorPreference(HeavyWorkExecutor.shared) { try body() }
}

/// One thread that runs the jobs given to it in order: heavy tests take turns on it, so however
/// many run at once, they hold one core's worth of threads, never the cooperative pool.
final class HeavyWorkExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = HeavyWorkExecutor()
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []  // guarded by `condition`

    private init() {
        let thread = Thread { [self] in run() }
        thread.name = "heavy test work"
        thread.stackSize = 16 << 20
        thread.start()
    }

    func enqueue(_ job: UnownedJob) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
