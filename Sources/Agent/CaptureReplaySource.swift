import BeaconKit

#if canImport(Glibc)
    import Glibc
#endif

/// Replays a recorded capture (anything BeaconKit's `CaptureReader` reads: btsnoop 1001/1002/2001,
/// pcap and pcapng with H4 link types) as if it came from an adapter.
///
/// Packets keep their recorded times, so windows and sightings carry the time they were heard.
/// The pace follows the recorded time divided by the speed factor (`.max`: no waiting); while it
/// waits, the source reports ``HCIReadStatus/idle(now:)`` with the capture's clock, so windows
/// close on time even across a silence. A record without a time takes the previous record's.
public final class CaptureReplaySource: HCIEventSource {
    public let name: String
    public private(set) var position: UInt64 = 0
    public let checkpointIdentity: UInt64?
    /// Records the reader could not read (damaged capture), counted and skipped.
    public var malformedPackets: UInt64 { UInt64(reader.statistics.malformedRecords) }

    private let reader: CaptureReader
    private let speed: ReplaySpeed
    private var lastTime: Int64 = 0
    private var firstRecordTime: Int64?
    private var startWall: Int64 = 0
    private var pending: Bool = false
    private var pendingTime: Int64 = 0
    private var pendingBytes: [UInt8] = []
    private var ended = false

    /// Opens `path`; throws BeaconKit's `CaptureError` (naming the file and what was expected) when
    /// it is missing or not a capture.
    public init(path: String, speed: ReplaySpeed = .max) throws {
        name = "replay:" + path
        reader = try CaptureReader(path: path)
        self.speed = speed
        var info = stat()
        if stat(path, &info) == 0 {
            let resolved =
                realpath(path, nil).map { pointer -> String in
                    defer { free(pointer) }
                    return String(cString: pointer)
                } ?? path
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in Array(resolved.utf8) + withUnsafeBytes(of: Int64(info.st_size), Array.init)
                + withUnsafeBytes(of: Int64(info.st_mtim.tv_sec), Array.init)
            {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            checkpointIdentity = hash == 0 ? 1 : hash
        } else {
            checkpointIdentity = nil
        }
    }

    public func skip(packets: UInt64) throws {
        while position < packets, let record = try reader.next() {
            position += 1
            if let time = record.timestampMicroseconds { lastTime = time }
        }
    }

    public func read(timeout: Double, _ body: (Int64, UnsafeRawBufferPointer) -> Void) throws -> HCIReadStatus {
        if case .max = speed {
            guard !ended, let record = try reader.next() else {
                ended = true
                return .end
            }
            position += 1
            let time = record.timestampMicroseconds ?? lastTime
            lastTime = time
            body(time, record.h4Packet)
            return .packet
        }
        guard case .factor(let factor) = speed else { return .end }

        // Paced: hold the next record (copied, since the reader's view does not outlive the call)
        // until its recorded time, scaled, has come.
        if !pending {
            guard !ended, let record = try reader.next() else {
                ended = true
                return .end
            }
            pendingTime = record.timestampMicroseconds ?? lastTime
            pendingBytes.removeAll(keepingCapacity: true)
            pendingBytes.append(contentsOf: record.h4Packet)
            pending = true
            if firstRecordTime == nil {
                firstRecordTime = pendingTime
                startWall = Self.monotonicMicros()
            }
        }
        let first = firstRecordTime ?? pendingTime
        let dueWall = startWall + Int64(Double(pendingTime - first) / factor)
        let now = Self.monotonicMicros()
        if dueWall > now {
            let wait = min(dueWall - now, Int64(max(0, timeout) * 1_000_000))
            if wait > 0 { usleep(UInt32(min(wait, 1_000_000))) }
            let after = Self.monotonicMicros()
            if dueWall > after {
                // The capture's clock now, so the pipeline can close windows during the silence.
                let captureNow = first + Int64(Double(after - startWall) * factor)
                return .idle(now: max(lastTime, captureNow))
            }
        }
        pending = false
        position += 1
        lastTime = pendingTime
        pendingBytes.withUnsafeBytes { body(pendingTime, $0) }
        return .packet
    }

    public func close() {
        ended = true
    }

    static func monotonicMicros() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1000
    }
}
