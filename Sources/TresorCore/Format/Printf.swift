// printf-style formatting of numbers (`%.1f`, `%d`, `%04o`) without Foundation's `String(format:)`.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// `format` with `arguments` as the C library's `printf` writes them, always with the POSIX decimal point (as
    /// Foundation's `String(format:)`), whatever locale the process set for the terminal. Numbers only: a Swift
    /// `String` is not a C variadic argument here, so text is joined around the result.
    package init(printf format: String, _ arguments: CVarArg...) {
        #if canImport(Glibc)
        let previous = uselocale(PrintfLocale.posix)
        defer { if previous != nil { uselocale(previous) } }
        self = withVaList(arguments) { list in
            var buffer = [CChar](repeating: 0, count: 128)
            let n = Int(vsnprintf(&buffer, buffer.count, format, list))
            if n < buffer.count { return String(cString: buffer) }
            return withVaList(arguments) { again in
                buffer = [CChar](repeating: 0, count: n + 1)
                _ = vsnprintf(&buffer, buffer.count, format, again)
                return String(cString: buffer)
            }
        }
        #else
        self = String(format: format, arguments: arguments)
        #endif
    }
}

#if canImport(Glibc)
/// The POSIX numeric locale, made once (`newlocale` of the "C" locale cannot fail).
private enum PrintfLocale {
    nonisolated(unsafe) static let posix: locale_t? = newlocale(LC_NUMERIC_MASK, "C", nil)
}
#endif
