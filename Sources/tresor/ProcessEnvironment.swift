// The environment tresor started with.
#if canImport(Glibc)
import Glibc
#endif

/// The environment as names and values, read from `environ` (tresor never changes its own environment). Where a name
/// appears twice, the last counts, as in `ProcessInfo`, which the library's own reads still use.
enum ProcessEnvironment {
    /// One variable's value: `environ` searched from its end, no dictionary built. (A first dictionary of strings
    /// instantiates its type by name, which scans every conformance record of the binary: a tenth of an `ls`.)
    static func value(_ name: String) -> String? {
        precondition(!name.isEmpty && !name.utf8.contains(0x3D), "a variable's name, without \"=\"")
        var name = name
        return name.withUTF8 { wanted -> String? in
            guard let base = wanted.baseAddress else { return nil }
            var count = 0
            while environ[count] != nil { count += 1 }
            while count > 0 {
                count -= 1
                guard let entry = environ[count] else { continue }
                // strncmp stops at the end of a shorter entry (its NUL differs from every byte of a name).
                let same = base.withMemoryRebound(to: CChar.self, capacity: wanted.count) { strncmp(entry, $0, wanted.count) == 0 }
                if same, entry[wanted.count] == 0x3D {
                    return String(cString: entry + wanted.count + 1)
                }
            }
            return nil
        }
    }

    /// Every variable, for the library's calls that take the environment whole; built once.
    static let values: [String: String] = {
        var values: [String: String] = [:]
        var next = environ
        while let entry = next.pointee {
            next += 1
            guard let equals = strchr(entry, 0x3D) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: entry, count: entry.distance(to: equals)), as: UTF8.self)
            values[name] = String(cString: equals + 1)
        }
        return values
    }()
}
