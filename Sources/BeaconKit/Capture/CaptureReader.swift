#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads HCI packets from a capture file (btsnoop 1001/1002/2001, pcap 187/201, pcapng), in
/// constant memory: the file is read in chunks into one buffer that grows only to the largest
/// record.
///
/// ```swift
/// let reader = try CaptureReader(path: "capture.btsnoop")
/// while let record = try reader.next() {
///     if record.packetType == .event { … record.packet … }
/// }
/// print(reader.statistics.malformedRecords)
/// ```
///
/// Damage inside the file never throws: a truncated or impossible record is counted in
/// ``statistics`` (``CaptureStatistics/malformedRecords``), described in ``issues``, and reading
/// goes on where the format allows it (or ends, when lengths can no longer be trusted). Only a
/// file that cannot be opened or read, or whose header is no known format, throws.
///
/// A reader is used from one thread at a time.
public final class CaptureReader {
    /// The name used in messages (the path, for files).
    public let name: String
    /// The detected container.
    public let format: CaptureFormat
    /// What has been read so far.
    public private(set) var statistics = CaptureStatistics()
    /// The first ``maximumIssues`` problems found, with record number and byte offset.
    public private(set) var issues: [CaptureIssue] = []
    /// How many issues ``issues`` keeps (all are counted in ``statistics``).
    public static let maximumIssues = 100
    /// Records longer than this are treated as corrupt lengths.
    public static let maximumRecordBytes = 1 << 20

    private var source: any ByteSource
    private var buffer: UnsafeMutableRawBufferPointer
    private var head = 0
    private var tail = 0
    private var atEndOfFile = false
    private var finished = false
    private var recordNumber = 0
    /// File offset of `buffer[head]`.
    private var offset: UInt64 = 0
    /// Holds packets that need an H4 byte prepended (btsnoop 1001 and 2001).
    private var scratch: UnsafeMutableRawBufferPointer
    // pcapng state
    private var bigEndian = true
    private var interfaces: [PcapngInterface] = []
    private let pcapNanoseconds: Bool

    /// Opens the capture at `path` and reads its header.
    /// `bufferSize` is the initial buffer (it grows to the largest record, at most
    /// ``maximumRecordBytes``).
    public convenience init(path: String, bufferSize: Int = 256 * 1024) throws(CaptureError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .cannotOpen(file: path, reason: String(cString: strerror(errno))) }
        try self.init(source: FileSource(fd: fd), name: path, bufferSize: bufferSize)
    }

    /// Reads a capture held in memory (tests, fuzzing); `name` appears in messages. A small
    /// `bufferSize` makes the reader refill and grow its buffer often, as with a large file.
    public convenience init(bytes: [UInt8], name: String = "<memory>", bufferSize: Int = 64 * 1024) throws(CaptureError) {
        try self.init(source: MemorySource(bytes: bytes), name: name, bufferSize: bufferSize)
    }

    private init(source: any ByteSource, name: String, bufferSize: Int) throws(CaptureError) {
        var source = source
        let header: Header
        do {
            header = try Self.readHeader(source: &source, name: name)
        } catch {
            source.close()
            throw error
        }
        self.source = source
        self.name = name
        self.format = header.format
        self.bigEndian = header.bigEndian
        self.pcapNanoseconds = header.nanoseconds
        self.buffer = .allocate(byteCount: max(bufferSize, 64, header.bytes.count), alignment: 8)
        self.scratch = .allocate(byteCount: 1024, alignment: 8)
        header.bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
        tail = header.bytes.count
        head = header.length
        atEndOfFile = header.atEnd
        offset = UInt64(head)
        statistics.bytesRead = UInt64(head)
    }

    /// What the first bytes of a capture say.
    private struct Header {
        var format: CaptureFormat
        var bigEndian: Bool
        var nanoseconds: Bool
        /// The bytes read so far (up to 28).
        var bytes: [UInt8]
        /// How many of them are the file header (records start there).
        var length: Int
        var atEnd: Bool
    }

    /// Reads up to 28 bytes (btsnoop header 16, pcap 24, pcapng section header 28) and detects the format.
    private static func readHeader(source: inout any ByteSource, name: String) throws(CaptureError) -> Header {
        let raw = UnsafeMutableRawBufferPointer.allocate(byteCount: 28, alignment: 8)
        defer { raw.deallocate() }
        var count = 0
        var atEnd = false
        while count < 28 {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]), name: name)
            if n == 0 {
                atEnd = true
                break
            }
            count += n
        }
        let bytes = Array(raw[0..<count])
        if bytes.count >= 8, bytes[0..<8].elementsEqual(Array("btsnoop".utf8) + [0]) {
            guard bytes.count >= 16 else { throw .truncatedHeader(file: name, format: "btsnoop", bytes: bytes.count, expected: 16) }
            let version = read32(bytes, 8, bigEndian: true)
            guard version == 1 else { throw .unsupportedVersion(file: name, format: "btsnoop", version: version) }
            let datalink = read32(bytes, 12, bigEndian: true)
            guard CaptureFormat.btsnoopDatalinks.contains(datalink) else { throw .unsupportedDatalink(file: name, datalink: datalink) }
            return Header(format: .btsnoop(datalink: datalink), bigEndian: true, nanoseconds: false, bytes: bytes, length: 16, atEnd: atEnd)
        }
        guard bytes.count >= 4 else { throw .unknownFormat(file: name, firstBytes: bytes) }
        let pcap: (nanoseconds: Bool, bigEndian: Bool)? =
            switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
            case (0xA1, 0xB2, 0xC3, 0xD4): (false, true)
            case (0xD4, 0xC3, 0xB2, 0xA1): (false, false)
            case (0xA1, 0xB2, 0x3C, 0x4D): (true, true)
            case (0x4D, 0x3C, 0xB2, 0xA1): (true, false)
            default: nil
            }
        if let pcap {
            guard bytes.count >= 24 else { throw .truncatedHeader(file: name, format: "pcap", bytes: bytes.count, expected: 24) }
            let linkType = read32(bytes, 20, bigEndian: pcap.bigEndian) & 0x0FFF_FFFF  // upper bits: FCS information
            guard CaptureFormat.pcapLinkTypes.contains(linkType) else { throw .unsupportedLinkType(file: name, linkType: linkType) }
            return Header(
                format: .pcap(linkType: linkType, nanosecondTimestamps: pcap.nanoseconds, bigEndian: pcap.bigEndian),
                bigEndian: pcap.bigEndian, nanoseconds: pcap.nanoseconds, bytes: bytes, length: 24, atEnd: atEnd)
        }
        if bytes[0..<4].elementsEqual([0x0A, 0x0D, 0x0D, 0x0A]) {
            guard bytes.count >= 12 else { throw .truncatedHeader(file: name, format: "pcapng", bytes: bytes.count, expected: 12) }
            guard let bigEndian = byteOrder(bytes[8], bytes[9], bytes[10], bytes[11]) else { throw .invalidByteOrderMagic(file: name) }
            // The section header block is then read as a block, like any later one.
            return Header(format: .pcapng, bigEndian: bigEndian, nanoseconds: false, bytes: bytes, length: 0, atEnd: atEnd)
        }
        throw .unknownFormat(file: name, firstBytes: bytes)
    }

    deinit {
        buffer.deallocate()
        scratch.deallocate()
        source.close()
    }

    /// The next HCI packet, or `nil` at the end of the capture. The record's bytes are valid
    /// until the next call.
    public func next() throws(CaptureError) -> CaptureRecord? {
        while !finished {
            let record: CaptureRecord?
            switch format {
            case .btsnoop(let datalink): record = try nextBtsnoop(datalink: datalink)
            case .pcap(let linkType, _, let be): record = try nextPcap(linkType: linkType, bigEndian: be)
            case .pcapng: record = try nextPcapng()
            }
            if let record {
                statistics.records += 1
                return record
            }
        }
        return nil
    }

    /// Calls `body` for every remaining HCI packet.
    public func forEach(_ body: (CaptureRecord) throws(CaptureError) -> Void) throws(CaptureError) {
        while let record = try next() {
            try body(record)
        }
    }

    // MARK: - btsnoop

    private func nextBtsnoop(datalink: UInt32) throws(CaptureError) -> CaptureRecord? {
        guard try ensure(24) else { return endOfData(partialWhat: "record header (24 bytes)") }
        recordNumber += 1
        let includedLength = Int(load32(0, bigEndian: true))
        let flags = load32(8, bigEndian: true)
        let rawTime = Int64(bitPattern: UInt64(load32(16, bigEndian: true)) << 32 | UInt64(load32(20, bigEndian: true)))
        guard includedLength <= Self.maximumRecordBytes else {
            return stop(
                "included length \(includedLength) exceeds \(Self.maximumRecordBytes) bytes; the rest of the file cannot be trusted")
        }
        guard try ensure(24 + includedLength) else {
            return stop("record data truncated: included length \(includedLength), only \(tail - head - 24) byte(s) left")
        }
        let data = UnsafeRawBufferPointer(rebasing: buffer[(head + 24)..<(head + 24 + includedLength)])
        let time = rawTime &- Self.btsnoopEpochOffset
        defer { consume(24 + includedLength) }
        switch datalink {
        case 1002:
            return h4Record(data, time: time, direction: flags & 1 == 0 ? .sent : .received)
        case 1001:
            let type: HCIPacketType = flags & 2 != 0 ? (flags & 1 != 0 ? .event : .command) : .aclData
            return prependedRecord(data, type: type, time: time, direction: flags & 1 == 0 ? .sent : .received)
        default:  // 2001: Linux monitor, opcode in the low 16 bits, controller index in the high.
            let opcode = flags & 0xFFFF
            let mapping: (HCIPacketType, PacketDirection)? =
                switch opcode {
                case 2: (.command, .sent)
                case 3: (.event, .received)
                case 4: (.aclData, .sent)
                case 5: (.aclData, .received)
                case 6: (.scoData, .sent)
                case 7: (.scoData, .received)
                case 18: (.isoData, .sent)
                case 19: (.isoData, .received)
                default: nil
                }
            guard let (type, direction) = mapping else {
                statistics.skippedRecords += 1
                return nil
            }
            return prependedRecord(data, type: type, time: time, direction: direction)
        }
    }

    /// Microseconds from 0000-01-01 (btsnoop's epoch) to 1970-01-01.
    public static let btsnoopEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    // MARK: - pcap

    private func nextPcap(linkType: UInt32, bigEndian be: Bool) throws(CaptureError) -> CaptureRecord? {
        guard try ensure(16) else { return endOfData(partialWhat: "record header (16 bytes)") }
        recordNumber += 1
        let seconds = Int64(load32(0, bigEndian: be))
        let fraction = Int64(load32(4, bigEndian: be))
        let includedLength = Int(load32(8, bigEndian: be))
        guard includedLength <= Self.maximumRecordBytes else {
            return stop("incl_len \(includedLength) exceeds \(Self.maximumRecordBytes) bytes; the rest of the file cannot be trusted")
        }
        guard try ensure(16 + includedLength) else {
            return stop("packet data truncated: incl_len \(includedLength), only \(tail - head - 16) byte(s) left")
        }
        defer { consume(16 + includedLength) }
        let time = seconds * 1_000_000 + (pcapNanoseconds ? fraction / 1000 : fraction)
        let data = UnsafeRawBufferPointer(rebasing: buffer[(head + 16)..<(head + 16 + includedLength)])
        return linkRecord(data, linkType: linkType, time: time)
    }

    /// A record of link type 187 (H4) or 201 (direction header, then H4).
    private func linkRecord(_ data: UnsafeRawBufferPointer, linkType: UInt32, time: Int64?) -> CaptureRecord? {
        guard linkType == 201 else { return h4Record(data, time: time, direction: nil) }
        guard data.count >= 4 else { return malformed("packet of \(data.count) byte(s) is shorter than the 4-byte direction header") }
        let direction = UInt32(data[0]) << 24 | UInt32(data[1]) << 16 | UInt32(data[2]) << 8 | UInt32(data[3])
        return h4Record(UnsafeRawBufferPointer(rebasing: data[4...]), time: time, direction: direction == 0 ? .sent : .received)
    }

    // MARK: - pcapng

    private func nextPcapng() throws(CaptureError) -> CaptureRecord? {
        guard try ensure(8) else { return endOfData(partialWhat: "block header (8 bytes)") }
        recordNumber += 1
        let blockType = load32(0, bigEndian: bigEndian)
        if blockType == 0x0A0D_0D0A {
            guard try ensure(12) else { return endOfData(partialWhat: "section header block") }
            guard let be = Self.byteOrder(buffer[head + 8], buffer[head + 9], buffer[head + 10], buffer[head + 11]) else {
                return stop("section header block has no valid byte-order magic")
            }
            bigEndian = be
            interfaces.removeAll(keepingCapacity: true)
        }
        let length = Int(load32(4, bigEndian: bigEndian))
        guard length >= 12, length % 4 == 0, length <= Self.maximumRecordBytes + 64 else {
            return stop(
                "block total length \(length) is impossible (at least 12, a multiple of 4, at most \(Self.maximumRecordBytes + 64))")
        }
        guard try ensure(length) else {
            return stop("block truncated: total length \(length), only \(tail - head) byte(s) left")
        }
        defer { consume(length) }
        guard load32(length - 4, bigEndian: bigEndian) == UInt32(length) else {
            return malformed("block's trailing total length \(load32(length - 4, bigEndian: bigEndian)) differs from its leading \(length)")
        }
        let body = UnsafeRawBufferPointer(rebasing: buffer[(head + 8)..<(head + length - 4)])
        switch blockType {
        case 0x0A0D_0D0A:  // section header
            return nil
        case 0x0000_0001:  // interface description
            guard body.count >= 8 else { return malformed("interface description block body is \(body.count) bytes, expected at least 8") }
            interfaces.append(
                PcapngInterface(
                    linkType: UInt32(read16(body, 0)),
                    unitsPerSecond: Self.timestampResolution(options: UnsafeRawBufferPointer(rebasing: body[8...]), bigEndian: bigEndian)))
            return nil
        case 0x0000_0006, 0x0000_0002:  // enhanced packet, obsolete packet
            guard body.count >= 20 else { return malformed("packet block body is \(body.count) bytes, expected at least 20") }
            let interfaceID = blockType == 6 ? Int(read32(body, 0)) : Int(read16(body, 0))
            let capturedLength = Int(read32(body, 12))
            guard capturedLength <= body.count - 20 else {
                return malformed("captured length \(capturedLength) exceeds the block's \(body.count - 20) data bytes")
            }
            guard interfaceID < interfaces.count else {
                return malformed("interface id \(interfaceID) was not described (\(interfaces.count) interface(s) so far)")
            }
            let interface = interfaces[interfaceID]
            guard CaptureFormat.pcapLinkTypes.contains(interface.linkType) else {
                statistics.skippedRecords += 1
                return nil
            }
            let ticks = UInt64(read32(body, 4)) << 32 | UInt64(read32(body, 8))
            let data = UnsafeRawBufferPointer(rebasing: body[20..<(20 + capturedLength)])
            return linkRecord(data, linkType: interface.linkType, time: interface.microseconds(ticks))
        case 0x0000_0003:  // simple packet: no interface id (always 0), no timestamp
            guard body.count >= 4 else { return malformed("simple packet block body is \(body.count) bytes, expected at least 4") }
            guard let interface = interfaces.first else { return malformed("simple packet block before any interface description") }
            guard CaptureFormat.pcapLinkTypes.contains(interface.linkType) else {
                statistics.skippedRecords += 1
                return nil
            }
            let capturedLength = min(Int(read32(body, 0)), body.count - 4)
            return linkRecord(UnsafeRawBufferPointer(rebasing: body[4..<(4 + capturedLength)]), linkType: interface.linkType, time: nil)
        default:  // name resolution, statistics, custom blocks: not packets
            return nil
        }
    }

    /// Units per second from an interface's `if_tsresol` option (default microseconds).
    private static func timestampResolution(options: UnsafeRawBufferPointer, bigEndian be: Bool) -> UInt64 {
        var index = 0
        while index + 4 <= options.count {
            let code =
                be ? UInt16(options[index]) << 8 | UInt16(options[index + 1]) : UInt16(options[index + 1]) << 8 | UInt16(options[index])
            let length = Int(
                be
                    ? UInt16(options[index + 2]) << 8 | UInt16(options[index + 3])
                    : UInt16(options[index + 3]) << 8 | UInt16(options[index + 2]))
            if code == 0 { break }
            if code == 9, length >= 1, index + 4 < options.count {
                let value = options[index + 4]
                let exponent = UInt64(value & 0x7F)
                if value & 0x80 != 0 {
                    return exponent < 64 ? 1 << exponent : 1_000_000
                }
                guard exponent <= 19 else { return 1_000_000 }
                var units: UInt64 = 1
                for _ in 0..<exponent { units *= 10 }
                return units
            }
            index += 4 + (length + 3) & ~3
        }
        return 1_000_000
    }

    private static func byteOrder(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Bool? {
        if (a, b, c, d) == (0x1A, 0x2B, 0x3C, 0x4D) { return true }
        if (a, b, c, d) == (0x4D, 0x3C, 0x2B, 0x1A) { return false }
        return nil
    }

    // MARK: - records

    /// A record whose first byte is the H4 packet type.
    private func h4Record(_ data: UnsafeRawBufferPointer, time: Int64?, direction: PacketDirection?) -> CaptureRecord? {
        guard data.count >= 1 else { return malformed("empty packet: no H4 packet type byte") }
        guard let type = HCIPacketType(rawValue: data[0]) else {
            return malformed("unknown H4 packet type 0x\(hex(data[0]))")
        }
        return CaptureRecord(
            number: recordNumber, timestampMicroseconds: time, direction: direction, packetType: type,
            packet: UnsafeRawBufferPointer(rebasing: data[1...]), h4Packet: data)
    }

    /// A record without an H4 byte: copy it behind one in the scratch buffer.
    private func prependedRecord(_ data: UnsafeRawBufferPointer, type: HCIPacketType, time: Int64, direction: PacketDirection)
        -> CaptureRecord
    {
        if scratch.count < data.count + 1 {
            scratch.deallocate()
            scratch = .allocate(byteCount: max(data.count + 1, scratch.count * 2), alignment: 8)
        }
        scratch[0] = type.rawValue
        if data.count > 0 {
            UnsafeMutableRawBufferPointer(rebasing: scratch[1...]).copyMemory(from: data)
        }
        let h4 = UnsafeRawBufferPointer(rebasing: scratch[0..<(data.count + 1)])
        return CaptureRecord(
            number: recordNumber, timestampMicroseconds: time, direction: direction, packetType: type,
            packet: UnsafeRawBufferPointer(rebasing: h4[1...]), h4Packet: h4)
    }

    /// Counts a malformed record that can be skipped; reading goes on.
    private func malformed(_ message: String) -> CaptureRecord? {
        statistics.malformedRecords += 1
        note(message)
        return nil
    }

    /// Counts a malformed record after which nothing can be trusted, and ends the capture.
    private func stop(_ message: String) -> CaptureRecord? {
        finished = true
        return malformed(message)
    }

    /// The end of the data: clean when nothing is left, a truncated record otherwise.
    private func endOfData(partialWhat: String) -> CaptureRecord? {
        finished = true
        let left = tail - head
        guard left > 0 else { return nil }
        recordNumber += 1
        statistics.bytesRead += UInt64(left)
        return malformed("file ends inside a \(partialWhat): \(left) byte(s) left")
    }

    private func note(_ message: String) {
        guard issues.count < Self.maximumIssues else { return }
        issues.append(CaptureIssue(file: name, record: recordNumber, offset: offset, message: message))
    }

    // MARK: - buffer

    /// Makes `count` bytes available from `head`; `false` when the file ends first.
    private func ensure(_ count: Int) throws(CaptureError) -> Bool {
        if tail - head >= count { return true }
        if atEndOfFile { return false }
        if buffer.count < count {
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, buffer.count * 2), alignment: 8)
            bigger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[head..<tail]))
            buffer.deallocate()
            buffer = bigger
        } else if head > 0 {
            let left = tail - head
            if left > 0 {
                UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: buffer.baseAddress! + head, byteCount: left)
            }
        }
        tail -= head
        head = 0
        while tail - head < count, !atEndOfFile {
            let n = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[tail...]), name: name)
            if n == 0 { atEndOfFile = true } else { tail += n }
        }
        return tail - head >= count
    }

    private func consume(_ count: Int) {
        head += count
        offset += UInt64(count)
        statistics.bytesRead += UInt64(count)
    }

    @inline(__always)
    private func load32(_ at: Int, bigEndian be: Bool) -> UInt32 {
        let value = UnsafeRawBufferPointer(buffer).loadUnaligned(fromByteOffset: head + at, as: UInt32.self)
        return be ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
    }

    @inline(__always)
    private func read32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        let value = bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
    }

    @inline(__always)
    private func read16(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt16 {
        let value = bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: value) : UInt16(littleEndian: value)
    }

    private static func read32(_ bytes: [UInt8], _ at: Int, bigEndian be: Bool) -> UInt32 {
        let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
        return be ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
    }
}

/// One pcapng interface: its link type and timestamp resolution.
struct PcapngInterface {
    var linkType: UInt32
    var unitsPerSecond: UInt64

    /// `ticks` in microseconds since 1970.
    func microseconds(_ ticks: UInt64) -> Int64 {
        if unitsPerSecond == 1_000_000 { return Int64(truncatingIfNeeded: ticks) }
        let seconds = ticks / unitsPerSecond
        let remainder = ticks % unitsPerSecond
        let fraction = remainder.multipliedFullWidth(by: 1_000_000)
        let micros = unitsPerSecond.dividingFullWidth((fraction.high, fraction.low)).quotient
        return Int64(truncatingIfNeeded: seconds &* 1_000_000 &+ micros)
    }
}

/// Where a reader's bytes come from.
protocol ByteSource {
    /// Reads up to `buffer.count` bytes; 0 at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(CaptureError) -> Int
    func close()
}

/// A file descriptor, read with `read(2)`.
struct FileSource: ByteSource {
    let fd: Int32

    mutating func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(CaptureError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while true {
            let n = systemRead(fd, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno == EINTR { continue }
            throw .readFailed(file: name, reason: String(cString: strerror(errno)))
        }
    }

    func close() {
        systemClose(fd)
    }
}

/// Bytes in memory.
struct MemorySource: ByteSource {
    let bytes: [UInt8]
    var position = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer, name: String) throws(CaptureError) -> Int {
        let n = min(buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: n)
        }
        position += n
        return n
    }

    func close() {}
}

// The C functions, under names that do not collide with the protocol's methods.
private func systemRead(_ fd: Int32, _ pointer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, pointer, count)
}

private func systemClose(_ fd: Int32) {
    _ = close(fd)
}
