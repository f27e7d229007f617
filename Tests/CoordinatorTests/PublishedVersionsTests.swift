@testable import Coordinator
import Foundation
import Synchronization
import Testing

/// The order of one coordinator's `regions` versions on the wire, whichever task publishes them.
@Suite("Published versions")
struct PublishedVersionsTests {
    struct Refused: Error {}

    /// What reached the "wire", in order.
    final class Wire: Sendable {
        let sent = Mutex<[UInt64]>([])
    }

    @Test("a set older than one already enqueued for its client is dropped; other clients are not affected")
    func staleDropped() {
        let published = PublishedVersions()
        var sent: [(String, UInt64)] = []
        for (client, version) in [("p", UInt64(194)), ("p", 193), ("q", 193), ("p", 194), ("p", 195)] {
            _ = published.enqueue(client: client, version: version) { sent.append((client, version)) }
        }
        #expect(sent.map(\.0) == ["p", "q", "p"] && sent.map(\.1) == [194, 193, 195])
        #expect(published.enqueue(client: "p", version: 10) {} == .stale(newest: 195))
    }

    @Test("a set the client refused to enqueue is not noted: the same version goes out on the retry")
    func refusedNotNoted() throws {
        let published = PublishedVersions()
        #expect(throws: Refused.self) { try published.enqueue(client: "p", version: 7) { () throws(Refused) in throw Refused() } }
        #expect(published.enqueue(client: "p", version: 7) {} == .enqueued)
    }

    @Test("after the client's set was cleared (it expired), a new record's versions go out whatever they are")
    func forgotten() {
        let published = PublishedVersions()
        _ = published.enqueue(client: "p", version: 9) {}
        published.forget(client: "p")
        #expect(published.enqueue(client: "p", version: 3) {} == .enqueued)
    }

    @Test("two tasks racing to publish one client's sets: what reaches the wire only increases")
    func concurrentPublishers() async {
        let published = PublishedVersions()
        let wire = Wire()
        await withTaskGroup(of: Void.self) { group in
            for start in [UInt64(1), 2] {
                group.addTask {
                    for version in stride(from: start, through: 2_000, by: 2) {
                        _ = published.enqueue(client: "p", version: version) { wire.sent.withLock { $0.append(version) } }
                        await Task.yield()
                    }
                }
            }
        }
        let sent = wire.sent.withLock { $0 }
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0 < $1 })
        #expect(sent.last == 2_000)
    }
}
