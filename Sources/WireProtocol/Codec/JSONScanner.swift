import BeaconKit
import Foundation

/// A forward-only JSON tokenizer over raw bytes, for the hot decoding paths.
///
/// It never traps: every read is bounds-checked and every failure is a ``JSONScanner/Failure``
/// that the caller turns into a ``WireProtocol/WireError`` naming the topic and the field.
/// Nesting depth is bounded so a hostile payload cannot exhaust the stack.
struct JSONScanner: ~Copyable {
    /// Why a payload is not the JSON expected.
    struct Failure: Error {
        var message: String
        var offset: Int
    }

    let base: UnsafePointer<UInt8>
    let count: Int
    var index = 0
    static let maximumDepth = 32

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        // An empty buffer may have a nil base address: point at a static byte with count 0.
        // An empty buffer may have no base address; nothing is ever read through it when count is 0.
        self.base = buffer.baseAddress ?? UnsafePointer(bitPattern: 0x10)!
        self.count = buffer.count
    }

    @inline(__always) func fail(_ message: String) -> Failure { Failure(message: message, offset: index) }

    @inline(__always) mutating func skipWhitespace() {
        while index < count {
            let c = base[index]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 } else { return }
        }
    }

    /// The next non-blank byte without consuming it; `nil` at the end.
    @inline(__always) mutating func peek() -> UInt8? {
        skipWhitespace()
        return index < count ? base[index] : nil
    }

    @inline(__always) mutating func expect(_ byte: UInt8, _ what: String) throws(Failure) {
        skipWhitespace()
        guard index < count, base[index] == byte else {
            throw fail("expected \(what)")
        }
        index += 1
    }

    /// Consumes `byte` when it is next.
    @inline(__always) mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        if index < count, base[index] == byte {
            index += 1
            return true
        }
        return false
    }

    /// After the first member of an object or array: `true` when another member follows (a `,`
    /// was consumed), `false` when `close` was consumed.
    @inline(__always) mutating func next(close: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        guard index < count else { throw fail("unterminated \(close == 0x7D ? "object" : "array")") }
        let c = base[index]
        index += 1
        if c == 0x2C { return true }
        if c == close { return false }
        index -= 1
        throw fail("expected , or \(close == 0x7D ? "}" : "]")")
    }

    /// Whether a `null` literal is next (consumed when it is).
    @inline(__always) mutating func consumeNull() -> Bool {
        skipWhitespace()
        if index + 4 <= count, base[index] == 0x6E, base[index + 1] == 0x75, base[index + 2] == 0x6C, base[index + 3] == 0x6C {
            index += 4
            return true
        }
        return false
    }

    /// A string's raw bytes as a range into the buffer; `nil` (nothing consumed) when the string
    /// holds a backslash escape, which the caller resolves through the slow path.
    mutating func rawString() throws(Failure) -> Range<Int>? {
        skipWhitespace()
        guard index < count, base[index] == 0x22 else { throw fail("expected a string") }
        let quote = index
        index += 1
        let start = index
        // Eight bytes at a time while none of them is a quote, a backslash or a control character.
        while index + 8 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            if JSONScanner.mayEndString(word) { break }
            index += 8
        }
        while index < count {
            let c = base[index]
            if c == 0x22 {
                index += 1
                return start..<(index - 1)
            }
            if c == 0x5C {
                index = quote
                return nil
            }
            if c < 0x20 { throw fail("control character in a string") }
            index += 1
        }
        throw fail("unterminated string")
    }

    /// Whether any of the eight bytes in `word` is `"`, `\\` or below 0x20 (exact: no false negatives,
    /// and a false positive only costs the byte-by-byte loop).
    @inline(__always) static func mayEndString(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & high != 0
    }

    /// A string's bytes, escapes resolved.
    mutating func stringBytes() throws(Failure) -> [UInt8] {
        if let range = try rawString() {
            return Array(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count))
        }
        return try escapedString()
    }

    /// A string's bytes without escapes, as a range into the buffer: fields whose legal values
    /// never need escapes (UUIDs, addresses, formats) reject an escaped spelling.
    mutating func stringRange() throws(Failure) -> Range<Int> {
        let start = index
        guard let range = try rawString() else {
            index = start
            throw fail("escapes are not allowed in this field")
        }
        return range
    }

    /// A string without escapes as `parse` reads its bytes; a failure at the string saying
    /// `expected` when `parse` returns nil.
    mutating func string<Value>(
        parsedBy parse: (UnsafeBufferPointer<UInt8>) -> Value?, expected: String
    ) throws(Failure) -> Value {
        let range = try stringRange()
        guard let value = parse(UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)) else {
            throw Failure(message: expected, offset: range.lowerBound)
        }
        return value
    }

    /// A string value as a Swift `String`.
    mutating func string() throws(Failure) -> String {
        let bytes = try stringBytes()
        guard let text = Self.validUTF8(bytes) else { throw fail("string is not valid UTF-8") }
        return text
    }

    /// `bytes` as a `String` when they are well-formed UTF-8, `nil` otherwise: as strict as
    /// `String(validating:as:)`, which needs iOS 18 and macOS 15. Decoding replaces every
    /// ill-formed sequence with U+FFFD (`EF BF BD`), which never spells the bytes it replaces, so
    /// the decoded string's bytes equal the input's exactly when the input was well-formed.
    static func validUTF8(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        let equal = text.utf8.withContiguousStorageIfAvailable { $0.elementsEqual(bytes) } ?? text.utf8.elementsEqual(bytes)
        return equal ? text : nil
    }

    /// The slow path: a string with backslash escapes, resolved.
    private mutating func escapedString() throws(Failure) -> [UInt8] {
        skipWhitespace()
        guard index < count, base[index] == 0x22 else { throw fail("expected a string") }
        index += 1
        var out = [UInt8]()
        while index < count {
            let c = base[index]
            index += 1
            switch c {
            case 0x22:
                return out
            case 0x5C:
                guard index < count else { throw fail("unterminated escape") }
                let e = base[index]
                index += 1
                switch e {
                case 0x22, 0x5C, 0x2F: out.append(e)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x6E: out.append(0x0A)
                case 0x72: out.append(0x0D)
                case 0x74: out.append(0x09)
                case 0x75:
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard index + 6 <= count, base[index] == 0x5C, base[index + 1] == 0x75 else { throw fail("unpaired surrogate") }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw fail("invalid escape \\\(Character(Unicode.Scalar(e)))")
                }
            default:
                if c < 0x20 { throw fail("control character in a string") }
                out.append(c)
            }
        }
        throw fail("unterminated string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= count else { throw fail("short \\u escape") }
        var value: UInt64 = 0
        var invalid: UInt8 = 0
        Hex.accumulate(base, index..<index + 4, into: &value, invalid: &invalid)
        guard invalid & 0xF0 == 0 else { throw fail("invalid \\u escape") }
        index += 4
        return UInt32(value)
    }

    /// Skips blanks and a leading minus sign; returns where the number starts and whether it is negative.
    @inline(__always)
    private mutating func numberStart() -> (start: Int, negative: Bool) {
        skipWhitespace()
        let start = index
        guard index < count, base[index] == 0x2D else { return (start, false) }
        index += 1
        return (start, true)
    }

    /// A JSON number, as a `Double`. Exact for every integer up to 2^53 and correctly rounded for
    /// short decimals (the fast path); anything longer goes through `strtod`.
    mutating func double() throws(Failure) -> Double {
        let (start, negative) = numberStart()
        var mantissa: UInt64 = 0
        var digits = 0
        var significant = 0
        guard index < count, base[index] >= 0x30, base[index] <= 0x39 else { throw fail("expected a number") }
        if base[index] == 0x30, index + 1 < count, base[index + 1] >= 0x30, base[index + 1] <= 0x39 {
            throw fail("number with a leading zero")
        }
        while index < count, base[index] >= 0x30, base[index] <= 0x39 {
            if significant < 19 {
                mantissa = mantissa &* 10 &+ UInt64(base[index] - 0x30)
                if mantissa != 0 { significant += 1 }
            } else {
                significant += 1
            }
            digits += 1
            index += 1
        }
        var fractionDigits = 0
        var slow = significant > 15
        if index < count, base[index] == 0x2E {
            index += 1
            guard index < count, base[index] >= 0x30, base[index] <= 0x39 else { throw fail("expected digits after the decimal point") }
            while index < count, base[index] >= 0x30, base[index] <= 0x39 {
                if significant < 15 {
                    mantissa = mantissa * 10 + UInt64(base[index] - 0x30)
                    if mantissa != 0 { significant += 1 }
                    fractionDigits += 1
                } else {
                    slow = true
                }
                index += 1
            }
        }
        if index < count, base[index] == 0x65 || base[index] == 0x45 {
            index += 1
            if index < count, base[index] == 0x2B || base[index] == 0x2D { index += 1 }
            guard index < count, base[index] >= 0x30, base[index] <= 0x39 else { throw fail("expected digits in the exponent") }
            while index < count, base[index] >= 0x30, base[index] <= 0x39 { index += 1 }
            slow = true
        }
        _ = digits
        if !slow, fractionDigits <= 22 {
            let value = Double(mantissa) / JSONScanner.powersOfTen[fractionDigits]
            return negative ? -value : value
        }
        // Slow path: hand the exact literal to strtod.
        var literal = [CChar](repeating: 0, count: index - start + 1)
        for i in start..<index { literal[i - start] = CChar(bitPattern: base[i]) }
        let value = literal.withUnsafeBufferPointer { strtod($0.baseAddress!, nil) }
        guard value.isFinite else { throw fail("number out of range") }
        return value
    }

    static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// A JSON number that must be an integer within `range` (as Codable's integer decoding demands).
    mutating func integer(in range: ClosedRange<Int64>) throws(Failure) -> Int64 {
        let (start, negative) = numberStart()
        var value = try digits(Int64.self, expected: "expected an integer")
        if index < count, base[index] == 0x2E || base[index] == 0x65 || base[index] == 0x45 {
            // Codable accepts 3.0 or 1e2 for an integer when the value is integral: do the same.
            index = start
            let real = try double()
            guard real.rounded() == real, real >= Double(range.lowerBound), real <= Double(range.upperBound) else {
                throw Failure(message: "expected an integer in \(range.lowerBound)...\(range.upperBound)", offset: start)
            }
            return Int64(real)
        }
        if negative { value = -value }
        guard range.contains(value) else {
            throw Failure(message: "integer \(value) outside \(range.lowerBound)...\(range.upperBound)", offset: start)
        }
        return value
    }

    /// The decimal digits at the cursor as a `T` (no sign, no leading zero), or `expected` when
    /// there are none.
    @inline(__always)
    private mutating func digits<T: FixedWidthInteger>(_ type: T.Type, expected: String) throws(Failure) -> T {
        guard index < count, base[index] >= 0x30, base[index] <= 0x39 else { throw fail(expected) }
        if base[index] == 0x30, index + 1 < count, base[index + 1] >= 0x30, base[index + 1] <= 0x39 {
            throw fail("number with a leading zero")
        }
        var value: T = 0
        while index < count, base[index] >= 0x30, base[index] <= 0x39 {
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(T(base[index] - 0x30))
            guard !o1, !o2 else { throw fail("integer out of range") }
            value = a
            index += 1
        }
        return value
    }

    /// An unsigned 64-bit integer (sequence numbers, versions).
    mutating func unsigned64() throws(Failure) -> UInt64 {
        skipWhitespace()
        let value = try digits(UInt64.self, expected: "expected a non-negative integer")
        if index < count, base[index] == 0x2E || base[index] == 0x65 || base[index] == 0x45 {
            throw fail("expected an integer")
        }
        return value
    }

    /// A `true` or `false` literal.
    mutating func bool() throws(Failure) -> Bool {
        skipWhitespace()
        if index + 4 <= count, base[index] == 0x74, base[index + 1] == 0x72, base[index + 2] == 0x75, base[index + 3] == 0x65 {
            index += 4
            return true
        }
        if index + 5 <= count, base[index] == 0x66, base[index + 1] == 0x61, base[index + 2] == 0x6C, base[index + 3] == 0x73,
            base[index + 4] == 0x65
        {
            index += 5
            return false
        }
        throw fail("expected true or false")
    }

    /// Skips any JSON value (for fields the contract does not know), validating its syntax.
    mutating func skipValue(depth: Int = 0) throws(Failure) {
        guard depth < JSONScanner.maximumDepth else { throw fail("nesting deeper than \(JSONScanner.maximumDepth)") }
        guard let c = peek() else { throw fail("expected a value") }
        switch c {
        case 0x22:
            _ = try stringBytes()
        case 0x7B:
            index += 1
            if consume(0x7D) { return }
            repeat {
                _ = try stringBytes()
                try expect(0x3A, ":")
                try skipValue(depth: depth + 1)
            } while try next(close: 0x7D)
        case 0x5B:
            index += 1
            if consume(0x5D) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try next(close: 0x5D)
        case 0x74, 0x66:
            _ = try bool()
        case 0x6E:
            guard consumeNull() else { throw fail("expected a value") }
        default:
            _ = try double()
        }
    }

    /// Reads an object key and its `:`; the key's bytes are compared in place.
    @inline(__always) mutating func key() throws(Failure) -> KeyBytes {
        if let range = try rawString() {
            try expect(0x3A, ":")
            return KeyBytes(base: base + range.lowerBound, count: range.count, owned: nil)
        }
        let bytes = try escapedString()
        try expect(0x3A, ":")
        return KeyBytes(base: nil, count: bytes.count, owned: bytes)
    }

    /// Fails unless only whitespace remains.
    mutating func end() throws(Failure) {
        skipWhitespace()
        guard index == count else { throw fail("trailing bytes after the JSON value") }
    }
}

extension JSONScanner {
    /// Consumes `pattern` (a key with its quotes and colon, `"rssi":`) when the next bytes are
    /// exactly it; `false` (nothing consumed) otherwise, also within 16 bytes of the end, where the
    /// caller's general path reads the key instead.
    @inline(__always) mutating func consume(_ pattern: BytePattern) -> Bool {
        guard index + 16 <= count, pattern.matches(base + index) else { return false }
        index += pattern.length
        return true
    }
}

/// An object key, either in place in the payload or (rarely, when escaped) copied.
struct KeyBytes {
    let base: UnsafePointer<UInt8>?
    let count: Int
    let owned: [UInt8]?

    /// Whether the key equals `literal` (a static ASCII string).
    @inline(__always) func equals(_ literal: StaticString) -> Bool {
        guard literal.utf8CodeUnitCount == count else { return false }
        let expected = literal.utf8Start
        if let base {
            // Keys are short: a byte loop the optimizer unrolls beats a call to memcmp.
            for i in 0..<count where base[i] != expected[i] { return false }
            return true
        }
        guard let owned else { return false }
        for i in 0..<count where owned[i] != expected[i] { return false }
        return true
    }

    var text: String {
        if let base { return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
        return String(decoding: owned ?? [], as: UTF8.self)
    }
}
