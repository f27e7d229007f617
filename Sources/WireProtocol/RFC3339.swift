public import Foundation

/// RFC 3339 timestamps in UTC with milliseconds (`2026-11-23T09:00:00.123Z`), the contract's only time format.
///
/// Written by hand rather than through `DateFormatter`: it is allocation-light, `Sendable` and exact
/// to the millisecond.
public enum RFC3339 {
    /// Formats `date` as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func string(from date: Date) -> String {
        string(millisecondsSince1970: milliseconds(since1970: date))
    }

    /// Formats a count of milliseconds since 1970 as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public static func string(millisecondsSince1970 millis: Int64) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(millisecondsSince1970: millis, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `date` as whole milliseconds since 1970, rounded down (the precision the contract keeps).
    static func milliseconds(since1970 date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Appends the `YYYY-MM-DDTHH:MM:SS.mmmZ` form of `millis` (since 1970) to `out`: the
    /// separators are a template and each field's digits are written into their place.
    static func append(millisecondsSince1970 millis: Int64, to out: inout [UInt8]) {
        let (days, msOfDay) = millis.quotientAndRemainder(dividingBy: 86_400_000)
        let (d, ms) = msOfDay < 0 ? (days - 1, msOfDay + 86_400_000) : (days, msOfDay)
        let (year, month, day) = civil(fromDays: d)
        let start = out.count
        out.append(contentsOf: "0000-00-00T00:00:00.000Z".utf8)
        // Each field as (value, offset of its first digit in the template, digits).
        let fields = [
            (year, 0, 4), (month, 5, 2), (day, 8, 2), (ms / 3_600_000, 11, 2), (ms / 60_000 % 60, 14, 2), (ms / 1000 % 60, 17, 2),
            (ms % 1000, 20, 3),
        ]
        for (value, offset, width) in fields {
            var v = value
            for i in (start + offset..<start + offset + width).reversed() {
                out[i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
        }
    }

    /// Parses an RFC 3339 timestamp (`Z` or `±HH:MM` offset, 0 to 9 fraction digits); `nil` when malformed.
    public static func date(from text: String) -> Date? {
        guard let millis = millisecondsSince1970(text) else { return nil }
        return Date(timeIntervalSince1970: Double(millis) / 1000)
    }

    /// Parses an RFC 3339 timestamp into milliseconds since 1970; `nil` when malformed.
    public static func millisecondsSince1970(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func num(_ from: Int, _ count: Int) -> Int64? {
            var v: Int64 = 0
            for i in from..<(from + count) {
                let c = b[i]
                guard c >= 48, c <= 57 else { return nil }
                v = v * 10 + Int64(c - 48)
            }
            return v
        }
        guard let year = num(0, 4), b[4] == UInt8(ascii: "-"), let month = num(5, 2), b[7] == UInt8(ascii: "-"),
            let day = num(8, 2), b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
            let hour = num(11, 2), b[13] == UInt8(ascii: ":"), let minute = num(14, 2), b[16] == UInt8(ascii: ":"),
            let second = num(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var fractionMillis: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < b.count, b[i] >= 48, b[i] <= 57 {
                if digits < 3 { fractionMillis = fractionMillis * 10 + Int64(b[i] - 48) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            if digits < 3 { for _ in digits..<3 { fractionMillis *= 10 } }
        }
        guard i < b.count else { return nil }
        var offsetMinutes: Int64 = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            guard i + 6 == b.count, let oh = num(i + 1, 2), b[i + 3] == UInt8(ascii: ":"), let om = num(i + 4, 2) else { return nil }
            offsetMinutes = (oh * 60 + om) * (b[i] == UInt8(ascii: "-") ? -1 : 1)
            i += 6
        } else {
            return nil
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return seconds * 1000 + fractionMillis
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
