// Timestamps in payloads: UTC milliseconds, written as "YYYY-MM-DDTHH:MM:SS.sssZ" (Spec/FORMAT.md §5.2).
import Foundation

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
        var secs = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let ms = Int(milliseconds - Int64(secs) * 1000)
        var t = tm()
        gmtime_r(&secs, &t)
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
        let b = Array(s.utf8)
        guard b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A,
              b[19] == 0x2E, b[23] == 0x5A else { return nil }
        func num(_ r: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for i in r { guard (0x30...0x39).contains(b[i]) else { return nil }; v = v * 10 + Int32(b[i] - 0x30) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13),
              let mi = num(14..<16), let se = num(17..<19), let ms = num(20..<23),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 60 else { return nil }
        var t = tm()
        t.tm_year = y - 1900; t.tm_mon = mo - 1; t.tm_mday = d; t.tm_hour = h; t.tm_min = mi; t.tm_sec = se
        let secs = timegm(&t)
        self.milliseconds = Int64(secs) * 1000 + Int64(ms)
        guard description.utf8.elementsEqual(b) else { return nil }
    }
}
