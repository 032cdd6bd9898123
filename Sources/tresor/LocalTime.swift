// Commit times as the history shows them: local time, to the minute (Foundation's DateFormatter did this before).
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

enum LocalTime {
    /// `yyyy-MM-dd HH:mm` in the local time zone (`TZ`, else /etc/localtime), Gregorian, ASCII digits.
    static func minutes(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return Timestamp(date).description }
        return String(printf: "%04d-%02d-%02d %02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min))
    }
}
