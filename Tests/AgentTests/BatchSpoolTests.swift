import Foundation
import Testing

@testable import Agent

/// The spool on a real temporary directory: order, acknowledgement, the bound, crash recovery.
@Suite struct BatchSpoolTests {
    let directory: String

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("spool-\(UUID().uuidString)").path
    }

    private func payload(_ seq: UInt64, size: Int = 100) -> [UInt8] {
        var bytes = Array("{\"seq\":\(seq)}".utf8)
        while bytes.count < size { bytes.append(UInt8(ascii: " ")) }
        return bytes
    }

    @Test func sequenceNumbersContinueAcrossReopen() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let spool = try BatchSpool(directory: directory, synchronous: false)
            for _ in 0..<5 { try spool.append { self.payload($0) } }
            try spool.acknowledge(1)
            try spool.acknowledge(2)
        }
        let reopened = try BatchSpool(directory: directory, synchronous: false)
        #expect(reopened.nextSequence == 6)
        #expect(reopened.acknowledgedThrough == 2)
        let pending = try reopened.pending(after: 0, limit: 100)
        #expect(pending.map(\.seq) == [3, 4, 5])
        #expect(pending.map(\.payload) == [payload(3), payload(4), payload(5)])
        #expect(try reopened.append { self.payload($0) } == 6)
    }

    @Test("the epoch is drawn with the spool, kept across reopening, and new when the spool is wiped")
    func epochLivesWithTheSpool() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first: UInt64
        do {
            let spool = try BatchSpool(directory: directory, synchronous: false)
            first = spool.epoch
            try spool.append { self.payload($0) }
        }
        #expect((1...(UInt64(1) << 53) - 1).contains(first))
        #expect(try BatchSpool(directory: directory, synchronous: false).epoch == first)
        try FileManager.default.removeItem(atPath: directory)
        let wiped = try BatchSpool(directory: directory, synchronous: false)
        #expect(wiped.epoch != first)
        #expect(wiped.nextSequence == 1)
    }

    @Test("a state file written before epochs (zeros there) gets an epoch, keeps its sequence, and keeps the epoch next time")
    func stateWithoutEpochGetsOne() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let spool = try BatchSpool(directory: directory, synchronous: false)
            for _ in 0..<3 { try spool.append { self.payload($0) } }
        }
        // Rewrite bytes 40..<48 (the epoch) as zero and fix the CRC: the layout of an older agent's state.
        let path = directory + "/state"
        var state = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        for i in 40..<48 { state[i] = 0 }
        let crc = CRC32.checksum(Array(state[0..<60]))
        for i in 0..<4 { state[60 + i] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(i))) }
        try Data(state).write(to: URL(fileURLWithPath: path))
        let epoch: UInt64
        do {
            let upgraded = try BatchSpool(directory: directory, synchronous: false)
            #expect(upgraded.epoch != 0)
            #expect(upgraded.nextSequence == 4)
            epoch = upgraded.epoch
            try upgraded.append { self.payload($0) }
        }
        #expect(try BatchSpool(directory: directory, synchronous: false).epoch == epoch)
    }

    @Test func pendingStopsAtTheByteLimitButAlwaysReturnsOneBatch() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try BatchSpool(directory: directory, synchronous: false)
        for _ in 0..<6 { try spool.append { self.payload($0, size: 300) } }
        #expect(try spool.pending(after: 0, limit: 10, byteLimit: 1000).map(\.seq) == [1, 2, 3])
        #expect(try spool.pending(after: 0, limit: 2, byteLimit: 1000).map(\.seq) == [1, 2])
        #expect(try spool.pending(after: 3, limit: 10, byteLimit: 600).map(\.seq) == [4, 5])
        // A batch larger than the limit still goes, alone: the limit bounds memory, it never stalls.
        #expect(try spool.pending(after: 0, limit: 10, byteLimit: 10).map(\.seq) == [1])
    }

    @Test func outOfOrderAcknowledgementsAdvanceOnlyWhenContiguous() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try BatchSpool(directory: directory, synchronous: false)
        for _ in 0..<4 { try spool.append { self.payload($0) } }
        try spool.acknowledge(3)
        #expect(spool.acknowledgedThrough == 0)
        #expect(try spool.pending(after: 0, limit: 10).map(\.seq) == [1, 2, 4])
        try spool.acknowledge(1)
        try spool.acknowledge(2)
        #expect(spool.acknowledgedThrough == 3)
        #expect(spool.statistics.batches == 1)
        #expect(try spool.pending(after: 0, limit: 10).map(\.seq) == [4])
    }

    @Test func pastTheBoundTheOldestAreDroppedAndCounted() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try BatchSpool(directory: directory, limitBytes: 64 * 1024, synchronous: false)
        for _ in 0..<2000 { try spool.append { self.payload($0, size: 200) } }
        let stats = spool.statistics
        #expect(stats.bytes <= 64 * 1024)
        #expect(stats.dropped > 0)
        #expect(stats.dropped + stats.batches == 2000)
        let pending = try spool.pending(after: 0, limit: 10_000)
        // What is left is the newest, contiguous, ending with the last batch.
        #expect(pending.last?.seq == 2000)
        #expect(pending.first?.seq == stats.dropped + 1)
        #expect(zip(pending, pending.dropFirst()).allSatisfy { $0.seq + 1 == $1.seq })
    }

    @Test func aTornRecordIsCutOffAtRecovery() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let spool = try BatchSpool(directory: directory, synchronous: false)
            for _ in 0..<3 { try spool.append { self.payload($0) } }
        }
        // Simulate a crash in the middle of the fourth append: half a record at the end of the segment.
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasSuffix(".spool") })
        let handle = try #require(FileHandle(forWritingAtPath: directory + "/" + segment))
        handle.seekToEndOfFile()
        handle.write(Data([0x31, 0x42, 0x46, 0x42, 100, 0, 0, 0, 4, 0, 0]))
        handle.closeFile()

        let spool = try BatchSpool(directory: directory, synchronous: false)
        #expect(spool.statistics.truncatedRecords == 1)
        #expect(try spool.pending(after: 0, limit: 10).map(\.seq) == [1, 2, 3])
        #expect(try spool.append { self.payload($0) } == 4)
        #expect(try spool.pending(after: 3, limit: 10).map(\.payload) == [payload(4)])
    }

    @Test func aSecondAgentCannotOpenTheSameSpool() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try BatchSpool(directory: directory, synchronous: false)
        #expect(throws: SpoolError.inUse(path: directory)) { try BatchSpool(directory: directory, synchronous: false) }
        _ = first
    }

    @Test func checkpointSurvivesAndClears() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let spool = try BatchSpool(directory: directory, synchronous: false)
            try spool.append(checkpoint: SourceCheckpoint(source: 42, position: 1234)) { self.payload($0) }
        }
        do {
            let spool = try BatchSpool(directory: directory, synchronous: false)
            #expect(spool.checkpoint == SourceCheckpoint(source: 42, position: 1234))
            try spool.clearCheckpoint()
        }
        #expect(try BatchSpool(directory: directory, synchronous: false).checkpoint == nil)
    }
}
