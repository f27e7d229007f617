#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One of a venue's line-oriented files: a header line naming the columns, then one record per
/// line. Fields are separated by commas and trimmed; `#` starts a comment; blank lines are
/// skipped. There is no quoting: ids, tags and numbers never contain commas.
///
/// Parsing works on the raw bytes so a million-line file loads in about a second, and every
/// record keeps its exact line number.
struct CSVTable {
    /// The path shown in diagnostics.
    let path: String
    /// The file's bytes followed by a 0 byte (so `strtod` always stops).
    let bytes: [UInt8]

    init(path: String, bytes: [UInt8]) {
        self.path = path
        var bytes = bytes
        bytes.append(0)
        self.bytes = bytes
    }

    /// Calls `body` with the header, then with every record, in order.
    ///
    /// `body` receives a ``CSVRecord`` valid only during the call.
    func forEachRecord(header: (CSVRecord) -> Void, record body: (CSVRecord) -> Void) {
        bytes.withUnsafeBufferPointer { buffer in
            let count = buffer.count - 1
            var record = CSVRecord(buffer: buffer, line: 0)
            var lineStart = 0
            var lineNumber = 0
            var sawHeader = false
            while lineStart < count {
                lineNumber += 1
                var lineEnd = lineStart
                while lineEnd < count, buffer[lineEnd] != 0x0A { lineEnd += 1 }
                // Content ends at a comment or a carriage return.
                var contentEnd = lineStart
                while contentEnd < lineEnd, buffer[contentEnd] != 0x23 /* # */, buffer[contentEnd] != 0x0D { contentEnd += 1 }
                record.line = lineNumber
                record.starts.removeAll(keepingCapacity: true)
                record.ends.removeAll(keepingCapacity: true)
                var fieldStart = lineStart
                var position = lineStart
                while true {
                    if position == contentEnd || buffer[position] == 0x2C /* , */ {
                        var s = fieldStart
                        var e = position
                        while s < e, buffer[s] == 0x20 || buffer[s] == 0x09 { s += 1 }
                        while e > s, buffer[e - 1] == 0x20 || buffer[e - 1] == 0x09 { e -= 1 }
                        record.starts.append(s)
                        record.ends.append(e)
                        if position == contentEnd { break }
                        fieldStart = position + 1
                    }
                    position += 1
                }
                var blank = true
                for index in record.starts.indices where record.starts[index] != record.ends[index] { blank = false }
                if !blank {
                    if sawHeader {
                        body(record)
                    } else {
                        sawHeader = true
                        header(record)
                    }
                }
                lineStart = lineEnd + 1
            }
        }
    }
}

/// One line of a ``CSVTable``: trimmed fields by column index.
struct CSVRecord {
    let buffer: UnsafeBufferPointer<UInt8>
    var line: Int
    var starts: [Int] = []
    var ends: [Int] = []

    init(buffer: UnsafeBufferPointer<UInt8>, line: Int) {
        self.buffer = buffer
        self.line = line
        starts.reserveCapacity(16)
        ends.reserveCapacity(16)
    }

    /// How many fields the line has.
    var fieldCount: Int { starts.count }

    /// Whether the column is absent or empty on this line.
    func isEmpty(_ column: Int) -> Bool {
        column < 0 || column >= starts.count || starts[column] == ends[column]
    }

    /// The field's text ("" when absent).
    func string(_ column: Int) -> String {
        guard !isEmpty(column) else { return "" }
        let slice = UnsafeBufferPointer(rebasing: buffer[starts[column]..<ends[column]])
        return String(decoding: slice, as: UTF8.self)
    }

    /// The field as a finite number: nil when empty, `.failure` when it is not a number.
    func number(_ column: Int) -> Result<Double, CSVFieldError>? {
        guard !isEmpty(column) else { return nil }
        let start = starts[column]
        let end = ends[column]
        // Only plain decimal notation: digits, sign, point, exponent.
        for index in start..<end {
            switch buffer[index] {
            case 0x30...0x39, 0x2B, 0x2D, 0x2E, 0x45, 0x65: continue
            default: return .failure(CSVFieldError(text: string(column)))
            }
        }
        let base = buffer.baseAddress! + start
        var endPointer: UnsafeMutablePointer<CChar>? = nil
        let value = base.withMemoryRebound(to: CChar.self, capacity: end - start + 1) { pointer in
            strtod(pointer, &endPointer)
        }
        let consumed = endPointer.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? 0
        guard consumed == end - start, value.isFinite else { return .failure(CSVFieldError(text: string(column))) }
        return .success(value)
    }

    /// The field as a non-negative integer no larger than `limit`.
    func integer(_ column: Int, limit: Int) -> Result<Int, CSVFieldError>? {
        guard !isEmpty(column) else { return nil }
        var value = 0
        for index in starts[column]..<ends[column] {
            let byte = buffer[index]
            guard byte >= 0x30, byte <= 0x39 else { return .failure(CSVFieldError(text: string(column))) }
            value = value * 10 + Int(byte - 0x30)
            if value > limit { return .failure(CSVFieldError(text: string(column))) }
        }
        return .success(value)
    }
}

/// A field that does not hold what its column needs.
struct CSVFieldError: Error {
    var text: String
}
