// Timestamps in payloads: UTC milliseconds, written as "YYYY-MM-DDTHH:MM:SS.sssZ" (Spec/FORMAT.md §5.2).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A point in time with millisecond precision. Ordering is chronological, and the fixed-width text
/// form sorts the same way.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public let milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }
    public init(_ date: Date) { milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
    public static func now() -> Timestamp { Timestamp(Date()) }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.milliseconds < b.milliseconds }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// The text form, e.g. `2026-11-21T18:40:00.123Z`.
    public var description: String {
        let secs = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let ms = Int(milliseconds - secs * 1000)
        let t = Self.civil(secondsSinceEpoch: secs)
        if (0...9999).contains(t.tm_year + 1900) {
            // The usual case in one 24-byte buffer (every entry's times are formatted when it is read).
            var b = [UInt8](repeating: 0, count: 24)
            func put(_ v: Int32, _ at: Int, _ w: Int) { var v = v; for k in (at..<at + w).reversed() { b[k] = UInt8(0x30 + v % 10); v /= 10 } }
            put(t.tm_year + 1900, 0, 4); b[4] = 0x2D; put(t.tm_mon + 1, 5, 2); b[7] = 0x2D; put(t.tm_mday, 8, 2); b[10] = 0x54
            put(t.tm_hour, 11, 2); b[13] = 0x3A; put(t.tm_min, 14, 2); b[16] = 0x3A; put(t.tm_sec, 17, 2); b[19] = 0x2E
            put(Int32(ms), 20, 3); b[23] = 0x5A
            return String(decoding: b, as: UTF8.self)
        }
        func pad(_ v: Int32, _ w: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s }
        return "\(pad(t.tm_year + 1900, 4))-\(pad(t.tm_mon + 1, 2))-\(pad(t.tm_mday, 2))T\(pad(t.tm_hour, 2)):\(pad(t.tm_min, 2)):\(pad(t.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
    }

    /// Parses exactly the text form; nil otherwise.
    public init?(parsing s: String) {
        var s = s
        guard let ms = s.withUTF8({ Self.milliseconds(UnsafeRawBufferPointer($0)) }) else { return nil }
        milliseconds = ms
    }

    /// The time the text form `b` names, if `b` is exactly that form: what formatting it gives back `b`, so a day
    /// past its month's end (which `days` would carry into the next month) is refused. Without a copy of the text
    /// or a formatted one to compare (every entry read parses several).
    static func milliseconds(_ b: UnsafeRawBufferPointer) -> Int64? {
        guard b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
              b[19] == 0x2E, b[23] == 0x5A else { return nil }
        func num(_ from: Int, _ to: Int) -> Int32? {
            var v: Int32 = 0
            for i in from..<to { let d = b[i] &- 0x30; guard d <= 9 else { return nil }; v = v * 10 + Int32(d) }
            return v
        }
        guard let y = num(0, 4), let mo = num(5, 7), let d = num(8, 10), let h = num(11, 13),
              let mi = num(14, 16), let se = num(17, 19), let ms = num(20, 23),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 60 else { return nil }
        let days = Self.days(year: Int64(y), month: Int64(mo), day: Int64(d))
        let back = civil(secondsSinceEpoch: days * 86_400)
        guard back.tm_year + 1900 == y, back.tm_mon + 1 == mo, back.tm_mday == d else { return nil }
        return (days * 86_400 + Int64(h) * 3600 + Int64(mi) * 60 + Int64(se)) * 1000 + Int64(ms)
    }

    // Proleptic Gregorian calendar in UTC by arithmetic (the days-from-civil algorithms of H. Hinnant), as
    // timegm and gmtime_r compute it but without their locking and time-zone set-up: every entry read parses
    // and formats several times.

    /// Days since 1970-01-01 of a date; a day past the month's end counts on into the next month.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The UTC calendar fields of a time, as `tm` would hold them (`tm_year` from 1900, `tm_mon` from 0).
    static func civil(secondsSinceEpoch secs: Int64) -> (tm_year: Int32, tm_mon: Int32, tm_mday: Int32, tm_hour: Int32, tm_min: Int32, tm_sec: Int32) {
        let dayCount = secs >= 0 ? secs / 86_400 : (secs - 86_399) / 86_400
        let rest = secs - dayCount * 86_400
        let z = dayCount + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        return (Int32(truncatingIfNeeded: year - 1900), Int32(month - 1), Int32(day), Int32(rest / 3600), Int32(rest % 3600 / 60), Int32(rest % 60))
    }
}
