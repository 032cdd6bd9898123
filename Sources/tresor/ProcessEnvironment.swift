// The environment tresor started with, read once.
#if canImport(Glibc)
import Glibc
#endif

/// The environment as names and values, read once from `environ` (tresor never changes its own environment).
/// `ProcessInfo.environment` built a new dictionary at each read (one command read it eight times), and its first
/// build cost as much as the rest of a `show`; where a name appears twice, the last counts, as in `ProcessInfo`,
/// which the library's own reads still use.
enum ProcessEnvironment {
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
