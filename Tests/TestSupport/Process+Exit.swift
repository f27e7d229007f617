public import Foundation

extension Process {
    /// Waits for the process to end without holding a thread: `waitUntilExit()` blocks one of
    /// the few threads every test in this process shares (as many as the machine has cores), and
    /// a blocked thread starves the timing-sensitive tests running beside it.
    public func exited() async -> Int32 {
        while isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        return terminationStatus
    }
}
