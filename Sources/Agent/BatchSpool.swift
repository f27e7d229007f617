#if canImport(Glibc)
    import Glibc
#endif

/// A sightings batch waiting in the spool for its acknowledgement.
public struct SpooledBatch: Sendable, Equatable {
    /// The batch's sequence number (also inside its payload).
    public var seq: UInt64
    /// The encoded `SightingsBatch`, exactly as it is published.
    public var payload: [UInt8]
}

/// Where a replay stood when its last batch was spooled, so a restarted agent resumes after it.
public struct SourceCheckpoint: Sendable, Equatable {
    /// A hash of the source's identity (the capture's path and size).
    public var source: UInt64
    /// Packets of that source already accounted for in spooled batches.
    public var position: UInt64
}

/// The spool's figures, for the status message.
public struct SpoolStatistics: Sendable, Equatable {
    /// Batches not yet acknowledged.
    public var batches: UInt64
    /// Bytes the spool's files take on disk now.
    public var bytes: UInt64
    /// The bound on ``bytes``.
    public var limitBytes: UInt64
    /// Batches dropped unacknowledged because the spool was full, since this spool was opened.
    public var dropped: UInt64
    /// Damaged records cut off while recovering (a crash in the middle of a write).
    public var truncatedRecords: UInt64
}

/// A bounded, crash-safe, ordered on-disk queue of encoded sightings batches.
///
/// Every batch is written here before it is published (write-ahead), and leaves only when
/// ``acknowledge(_:)`` reports the broker's acknowledgement; so a batch survives a broker outage,
/// an agent crash (even SIGKILL) and a restart, and is delivered in sequence order afterwards.
/// The spool also owns the per-gateway sequence counter: numbers are assigned here, persisted with
/// the batch, and never repeat or skip across restarts.
///
/// On disk, a directory holds:
/// - `batches-<first seq>.spool` segment files of records `magic, length, seq, crc32, payload`;
/// - `state`: the next sequence number, the acknowledged-through cursor, the replay checkpoint and
///   the spool's ``epoch``, 64 bytes with a CRC, rewritten in place;
/// - `lock`: held with `flock` while an agent uses the directory.
///
/// Past `limitBytes`, whole segments are dropped oldest first; their unacknowledged batches are
/// counted in ``SpoolStatistics/dropped``. A record torn by a crash mid-write is detected by its
/// CRC and cut off at recovery.
///
/// Not thread-safe: one owner (the publisher actor) uses it.
public final class BatchSpool {
    private struct Record {
        var seq: UInt64
        var offset: Int64  // of the payload
        var length: Int
    }

    private struct Segment {
        var firstSeq: UInt64
        var path: String
        var descriptor: Int32
        var size: Int64
        var records: [Record]
        var lastSeq: UInt64 { records.last?.seq ?? firstSeq }
    }

    static let recordMagic: UInt32 = 0x4246_4231  // "BFB1"
    static let stateMagic: UInt32 = 0x4246_5354  // "BFST"
    static let headerSize = 20
    static let stateSize = 64

    /// The spool's directory.
    public let directory: String
    /// The bound on the bytes the spool's files may take.
    public let limitBytes: UInt64
    /// Whether each append is flushed to stable storage (`fsync`), surviving power loss, not only a crash.
    public let synchronous: Bool

    private let segmentLimit: Int64
    private var segments: [Segment] = []
    private var stateDescriptor: Int32 = -1
    private var lockDescriptor: Int32 = -1

    /// The sequence number the next batch gets (the first is 1).
    public private(set) var nextSequence: UInt64 = 1
    /// Every batch up to this sequence number is acknowledged or dropped.
    public private(set) var acknowledgedThrough: UInt64 = 0
    /// Where the replay stood when the last batch was spooled.
    public private(set) var checkpoint: SourceCheckpoint?
    /// This spool's epoch: a random number from 1 to 2^53 − 1 drawn when the spool is new (no
    /// valid `state` file: a first start, a wiped or re-imaged gateway) and kept in its state
    /// afterwards. Batches carry it, so a consumer can tell a gateway whose `seq` restarted at 1
    /// from one re-sending batches it already has.
    public private(set) var epoch: UInt64 = 0
    private var acknowledgedAhead: Set<UInt64> = []
    private var dropped: UInt64 = 0
    private var truncated: UInt64 = 0

    /// Opens (creating it if needed) the spool in `directory` and recovers what a previous run left.
    /// - Parameters:
    ///   - limitBytes: the bound on the spool's files (64 MiB by default).
    ///   - synchronous: `fsync` every append (survives power loss; costs a disk flush per window).
    public init(directory: String, limitBytes: UInt64 = 64 << 20, synchronous: Bool = true) throws(SpoolError) {
        self.directory = directory
        self.limitBytes = max(limitBytes, 4096)
        self.synchronous = synchronous
        segmentLimit = max(4096, min(4 << 20, Int64(self.limitBytes / 16)))
        try createDirectory(directory)

        let lockPath = directory + "/lock"
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else { throw .io(path: lockPath, operation: "open", errno: errno) }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            // `self` is fully initialized here, so throwing runs `deinit`, which closes
            // `lockDescriptor` again: mark it closed, or deinit closes whatever reused the number.
            Glibc.close(lockDescriptor)
            lockDescriptor = -1
            throw .inUse(path: directory)
        }
        do {
            try recover()
        } catch {
            closeAll()
            throw error
        }
    }

    deinit { closeAll() }

    private func closeAll() {
        for segment in segments where segment.descriptor >= 0 { Glibc.close(segment.descriptor) }
        segments = []
        if stateDescriptor >= 0 { Glibc.close(stateDescriptor) }
        stateDescriptor = -1
        if lockDescriptor >= 0 { Glibc.close(lockDescriptor) }  // releases the flock
        lockDescriptor = -1
    }

    // MARK: - Writing

    /// Assigns the next sequence number, has `encode` build the batch's payload with it, and
    /// writes the payload to the spool (with `checkpoint`, where the source stood) before returning.
    /// - Returns: the batch's sequence number.
    @discardableResult
    public func append(checkpoint newCheckpoint: SourceCheckpoint? = nil, _ encode: (UInt64) throws -> [UInt8]) throws -> UInt64 {
        let seq = nextSequence
        let payload = try encode(seq)
        let recordSize = Int64(Self.headerSize + payload.count)
        guard UInt64(recordSize) + UInt64(Self.stateSize) <= limitBytes else {
            throw SpoolError.batchTooLarge(bytes: payload.count, limit: limitBytes)
        }
        while !segments.isEmpty, totalBytes + UInt64(recordSize) > limitBytes {
            dropOldestSegment()
        }
        if segments.isEmpty || segments[segments.count - 1].size + recordSize > segmentLimit {
            try startSegment(firstSeq: seq)
        }
        var record = [UInt8]()
        record.reserveCapacity(Int(recordSize))
        Self.put32(Self.recordMagic, into: &record)
        Self.put32(UInt32(payload.count), into: &record)
        Self.put64(seq, into: &record)
        Self.put32(CRC32.checksum(payload), into: &record)
        record.append(contentsOf: payload)

        let index = segments.count - 1
        let offset = segments[index].size
        try writeAll(record, to: segments[index].descriptor, at: offset, path: segments[index].path)
        if synchronous { _ = fsync(segments[index].descriptor) }
        segments[index].size += recordSize
        segments[index].records.append(Record(seq: seq, offset: offset + Int64(Self.headerSize), length: payload.count))
        nextSequence = seq + 1
        if let newCheckpoint { checkpoint = newCheckpoint }
        try writeState()
        return seq
    }

    /// Records the broker's acknowledgement of `seq`; the batch leaves the spool (its segment file
    /// is deleted once every batch in it is acknowledged).
    public func acknowledge(_ seq: UInt64) throws {
        guard seq > acknowledgedThrough, seq < nextSequence else { return }
        acknowledgedAhead.insert(seq)
        var advanced = false
        while acknowledgedAhead.remove(acknowledgedThrough + 1) != nil {
            acknowledgedThrough += 1
            advanced = true
        }
        guard advanced else { return }
        while let first = segments.first, first.lastSeq <= acknowledgedThrough, !first.records.isEmpty {
            removeSegment(at: 0)
        }
        try writeState()
    }

    /// Forgets the replay checkpoint (a replay that reached its end starts from the beginning next time).
    public func clearCheckpoint() throws {
        guard checkpoint != nil else { return }
        checkpoint = nil
        try writeState()
    }

    // MARK: - Reading

    /// Unacknowledged batches with a sequence number above `seq`, oldest first, at most `limit` of them
    /// and, beyond the first, at most `byteLimit` payload bytes in all.
    public func pending(after seq: UInt64, limit: Int, byteLimit: Int = .max) throws -> [SpooledBatch] {
        var result: [SpooledBatch] = []
        var bytes = 0
        let floor = max(seq, acknowledgedThrough)
        for segment in segments where segment.lastSeq > floor {
            var low = 0
            var high = segment.records.count
            while low < high {
                let mid = (low + high) / 2
                if segment.records[mid].seq <= floor { low = mid + 1 } else { high = mid }
            }
            for record in segment.records[low...] where !acknowledgedAhead.contains(record.seq) {
                if !result.isEmpty, bytes + record.length > byteLimit { return result }
                bytes += record.length
                var payload = [UInt8](repeating: 0, count: record.length)
                let count = payload.withUnsafeMutableBytes {
                    pread(segment.descriptor, $0.baseAddress, record.length, off_t(record.offset))
                }
                guard count == record.length else {
                    throw SpoolError.io(path: segment.path, operation: "read", errno: count < 0 ? errno : 5)
                }
                result.append(SpooledBatch(seq: record.seq, payload: payload))
                if result.count >= limit { return result }
            }
        }
        return result
    }

    /// Whether a batch is still waiting (neither acknowledged nor dropped).
    public func isPending(_ seq: UInt64) -> Bool {
        seq > acknowledgedThrough && seq < nextSequence && !acknowledgedAhead.contains(seq)
            && segments.contains { $0.firstSeq <= seq && seq <= $0.lastSeq }
    }

    /// The spool's figures now.
    public var statistics: SpoolStatistics {
        var waiting: UInt64 = 0
        for segment in segments {
            for record in segment.records where record.seq > acknowledgedThrough { waiting += 1 }
        }
        waiting -= UInt64(acknowledgedAhead.count)
        return SpoolStatistics(batches: waiting, bytes: totalBytes, limitBytes: limitBytes, dropped: dropped, truncatedRecords: truncated)
    }

    private var totalBytes: UInt64 {
        UInt64(Self.stateSize) + segments.reduce(0) { $0 + UInt64($1.size) }
    }

    // MARK: - Segments

    private func segmentPath(_ firstSeq: UInt64) -> String {
        let digits = String(firstSeq)
        return directory + "/batches-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".spool"
    }

    private func startSegment(firstSeq: UInt64) throws(SpoolError) {
        let path = segmentPath(firstSeq)
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
        segments.append(Segment(firstSeq: firstSeq, path: path, descriptor: descriptor, size: 0, records: []))
    }

    private func dropOldestSegment() {
        let segment = segments[0]
        for record in segment.records where record.seq > acknowledgedThrough && !acknowledgedAhead.contains(record.seq) {
            dropped += 1
        }
        if segment.lastSeq > acknowledgedThrough {
            for seq in acknowledgedAhead where seq <= segment.lastSeq { acknowledgedAhead.remove(seq) }
            acknowledgedThrough = segment.lastSeq
        }
        removeSegment(at: 0)
    }

    private func removeSegment(at index: Int) {
        let segment = segments.remove(at: index)
        Glibc.close(segment.descriptor)
        unlink(segment.path)
    }

    // MARK: - Recovery

    private func createDirectory(_ path: String) throws(SpoolError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o755) != 0, errno != EEXIST {
                throw .cannotOpenDirectory(path: path, errno: errno)
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotOpenDirectory(path: path, errno: ENOTDIR)
        }
    }

    private func recover() throws(SpoolError) {
        let statePath = directory + "/state"
        stateDescriptor = open(statePath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard stateDescriptor >= 0 else { throw .io(path: statePath, operation: "open", errno: errno) }
        var state = [UInt8](repeating: 0, count: Self.stateSize)
        let stateRead = state.withUnsafeMutableBytes { pread(stateDescriptor, $0.baseAddress, Self.stateSize, 0) }
        let stateValid =
            stateRead == Self.stateSize && Self.get32(state, 0) == Self.stateMagic
            && Self.get32(state, 60) == state.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<60])) }
        if stateValid {
            nextSequence = max(1, Self.get64(state, 8))
            acknowledgedThrough = Self.get64(state, 16)
            let source = Self.get64(state, 24)
            if source != 0 { checkpoint = SourceCheckpoint(source: source, position: Self.get64(state, 32)) }
            epoch = Self.get64(state, 40)  // 0 in a state written before epochs: a new one below
        }
        if epoch == 0 { epoch = Self.newEpoch() }

        // Segment files, in sequence order (the names are zero-padded).
        var names: [String] = []
        if let dir = opendir(directory) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if name.hasPrefix("batches-"), name.hasSuffix(".spool") { names.append(name) }
            }
            closedir(dir)
        }
        names.sort()
        var lowestSeq: UInt64?
        for name in names {
            let path = directory + "/" + name
            let descriptor = open(path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw .io(path: path, operation: "open", errno: errno) }
            var info = stat()
            fstat(descriptor, &info)
            var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
            let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
            guard count == bytes.count else {
                Glibc.close(descriptor)
                throw .io(path: path, operation: "read", errno: errno)
            }
            var records: [Record] = []
            var offset = 0
            while offset + Self.headerSize <= bytes.count {
                let length = Int(Self.get32(bytes, offset + 4))
                guard Self.get32(bytes, offset) == Self.recordMagic, offset + Self.headerSize + length <= bytes.count else { break }
                let seq = Self.get64(bytes, offset + 8)
                let crc = bytes.withUnsafeBytes {
                    CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[(offset + Self.headerSize)..<(offset + Self.headerSize + length)]))
                }
                guard crc == Self.get32(bytes, offset + 16), seq > (records.last?.seq ?? 0) else { break }
                records.append(Record(seq: seq, offset: Int64(offset + Self.headerSize), length: length))
                offset += Self.headerSize + length
            }
            if offset < bytes.count {
                // A crash in the middle of an append left a partial or damaged record: cut it off.
                truncated += 1
                if ftruncate(descriptor, off_t(offset)) != 0 {
                    Glibc.close(descriptor)
                    throw .io(path: path, operation: "truncate", errno: errno)
                }
            }
            guard let first = records.first else {
                Glibc.close(descriptor)
                unlink(path)
                continue
            }
            lowestSeq = min(lowestSeq ?? first.seq, first.seq)
            nextSequence = max(nextSequence, records[records.count - 1].seq + 1)
            segments.append(Segment(firstSeq: first.seq, path: path, descriptor: descriptor, size: Int64(offset), records: records))
        }
        if !stateValid, let lowestSeq { acknowledgedThrough = lowestSeq - 1 }
        while let first = segments.first, first.lastSeq <= acknowledgedThrough { removeSegment(at: 0) }
        try writeState()
    }

    private func writeState() throws(SpoolError) {
        var state = [UInt8]()
        state.reserveCapacity(Self.stateSize)
        Self.put32(Self.stateMagic, into: &state)
        Self.put32(1, into: &state)
        Self.put64(nextSequence, into: &state)
        Self.put64(acknowledgedThrough, into: &state)
        Self.put64(checkpoint?.source ?? 0, into: &state)
        Self.put64(checkpoint?.position ?? 0, into: &state)
        Self.put64(epoch, into: &state)
        while state.count < 60 { state.append(0) }
        Self.put32(CRC32.checksum(state), into: &state)
        try writeAll(state, to: stateDescriptor, at: 0, path: directory + "/state")
        if synchronous { _ = fdatasync(stateDescriptor) }
    }

    private func writeAll(_ bytes: [UInt8], to descriptor: Int32, at offset: Int64, path: String) throws(SpoolError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes {
                pwrite(descriptor, $0.baseAddress! + written, $0.count - written, off_t(offset) + off_t(written))
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, operation: "write", errno: errno)
            }
            written += count
        }
    }

    /// A new epoch: random, from 1 to 2^53 − 1 (exact in a JavaScript number, like every integer
    /// of the wire contract). Not time-based: a gateway without a real-time clock boots in 1970.
    static func newEpoch() -> UInt64 {
        UInt64.random(in: 1...(1 << 53) - 1)
    }

    // MARK: - Little-endian fields

    private static func put32(_ value: UInt32, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func put64(_ value: UInt64, into bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    private static func get32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[offset + i]) << (8 * i) }
        return value
    }

    private static func get64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * i) }
        return value
    }
}
