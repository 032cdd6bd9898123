// The parts of an entry's URL that decide where its login is used: scheme, host, port and path.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// An entry URL as the browser host and git's credential helper compare it. A URL without a scheme
/// (`github.com/org`) is taken as https. The host is lowercased; a port is kept only when it is not the scheme's
/// default (443 for https, 80 for http), so `https://example.org:443` and `https://example.org` are one site.
package struct SiteURL: Equatable, Sendable {
    package let scheme: String
    package let host: String
    package let port: Int?
    /// The path without its leading and trailing `/` (empty for a whole site).
    package let path: String
    /// The URL as the entry holds it.
    package let text: String

    /// `host` with `:port` when there is a port: how git names a host, and how the browser host lists it.
    package var hostAndPort: String { port.map { "\(host):\($0)" } ?? host }

    /// Parses `text`; nil when it names no host.
    package init?(_ text: String) {
        let trimmed = text.trimming(.whitespaces)
        let full = trimmed.contains("://") ? trimmed : "https://" + trimmed
        guard let c = URLComponents(string: full), let scheme = c.scheme?.lowercased(), var host = c.host?.lowercased(), !host.isEmpty else {
            return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains("/"), !host.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else { return nil }
        self.scheme = scheme
        self.host = SiteURL.asciiHost(host)
        let defaults = ["https": 443, "http": 80]
        port = c.port.flatMap { defaults[scheme] == $0 ? nil : $0 }
        path = c.percentEncodedPath.trimming(ScalarSet(charactersIn: "/"))
        self.text = text
    }

    /// A host with non-ASCII labels in their IDNA form (`bücher.de` → `xn--bcher-kva.de`), as browsers and git see it.
    static func asciiHost(_ host: String) -> String {
        guard host.unicodeScalars.contains(where: { !$0.isASCII }) else { return host }
        return host.nfc.split(separator: ".", omittingEmptySubsequences: false).map { label -> String in
            guard label.unicodeScalars.contains(where: { !$0.isASCII }), let encoded = Punycode.encode(String(label)) else { return String(label) }
            return "xn--" + encoded
        }.joined(separator: ".")
    }
}

/// RFC 3492 Punycode (the part IDNA needs: encoding one label).
enum Punycode {
    static func encode(_ label: String) -> String? {
        let input = label.unicodeScalars.map(\.value)
        let base: UInt32 = 36, tMin: UInt32 = 1, tMax: UInt32 = 26, skew: UInt32 = 38, damp: UInt32 = 700
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar($0)!) }
        let basic = UInt32(output.count)
        var handled = basic
        if basic > 0 { output.append("-") }
        var n: UInt32 = 0x80, delta: UInt32 = 0, bias: UInt32 = 72
        func digit(_ d: UInt32) -> Character { Character(Unicode.Scalar(d < 26 ? d + 97 : d + 22)!) }
        func adapt(_ delta: UInt32, _ points: UInt32, _ first: Bool) -> UInt32 {
            var d = first ? delta / damp : delta / 2
            d += d / points
            var k: UInt32 = 0
            while d > ((base - tMin) * tMax) / 2 { d /= base - tMin; k += base }
            return k + (base - tMin + 1) * d / (d + skew)
        }
        while handled < UInt32(input.count) {
            guard let m = input.filter({ $0 >= n }).min() else { return nil }
            let (mul, o1) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !o1 else { return nil }
            delta += mul
            n = m
            for c in input {
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basic)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return String(output).lowercased()
    }
}
