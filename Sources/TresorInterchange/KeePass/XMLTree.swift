// A small element tree built by XMLReader, for KeePass XML, KDBX payloads and key files.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// One XML element: name, attributes, text and children in document order.
final class XMLElement {
    let name: String
    let attributes: [String: String]
    var text = ""
    var children: [XMLElement] = []
    /// A protected value, decrypted (set by the KeePass reader in document order).
    var secret: SecretBytes?
    init(name: String, attributes: [String: String]) { self.name = name; self.attributes = attributes }

    /// The first child named `name`.
    func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }
    /// All children named `name`.
    func children(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }
    /// The text of the first child named `name`.
    func value(_ name: String) -> String? { child(name)?.text }

    /// Every element of the tree in document order (pre-order).
    func walk(_ body: (XMLElement) throws -> Void) rethrows {
        try body(self)
        for c in children { try c.walk(body) }
    }

    /// Parses `bytes` (UTF-8; no DTD, so no entity is expanded or fetched). - Throws: `.malformed` with the line and
    /// what is wrong.
    static func parse(_ bytes: UnsafeRawBufferPointer, file: String) throws -> XMLElement {
        guard isUTF8(bytes) else { throw InterchangeError.malformed(path: file, .notUTF8) }
        do { return try XMLReader.parse(bytes) } catch let e as XMLReader.Failure {
            throw InterchangeError.malformed(path: file, .xml(line: e.line, e.problem))
        }
    }

    /// Parses the bytes of a zeroing buffer without copying them into an ordinary buffer first.
    static func parse(_ bytes: SecretBytes, file: String) throws -> XMLElement {
        try bytes.withBytes { b in
            guard b.count > 0 else { throw InterchangeError.malformed(path: file, .emptyXML) }
            return try parse(b, file: file)
        }
    }

    /// Whether `bytes` are well-formed UTF-8, checked without copying them into a `String`.
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

/// KeePass key files: XML version 1.0 (base64) or 2.0 (hex), 32 raw bytes, 64 hex digits, or any other
/// file (its SHA-256).
enum KeyFile {
    static func key(_ bytes: [UInt8]) throws -> SecretBytes {
        if let root = try? bytes.withUnsafeBytes({ try XMLElement.parse($0, file: "key file") }), root.name == "KeyFile",
           let data = root.child("Key")?.child("Data") {
            let version = root.child("Meta")?.value("Version") ?? "1.0"
            let text = data.text.filter { !$0.isWhitespace }
            if version.hasPrefix("2"), let b = OTPAuth.hexBytes(text), b.count == 32 { return SecretBytes(copying: b) }
            if let b = Data(base64Encoded: text), b.count == 32 { return SecretBytes(copying: b) }
        }
        if bytes.count == 32 { return SecretBytes(copying: bytes) }
        if bytes.count == 64, let b = OTPAuth.hexBytes(String(decoding: bytes, as: UTF8.self)) { return SecretBytes(copying: b) }
        return SHA2.sha256(SecretBytes(copying: bytes))
    }
}
