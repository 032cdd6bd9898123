// A small XML 1.0 reader for KeePass documents and key files: elements, attributes, text, CDATA sections,
// comments, processing instructions, the predefined entities and character references. No DTD: a document that
// declares entities is refused, so nothing is ever expanded or fetched.

/// Builds the element tree of a well-formed UTF-8 XML document, or throws `XMLReader.Failure` with the line.
struct XMLReader {
    struct Failure: Error, Equatable {
        let line: Int
        let problem: InterchangeError.XMLProblem
    }

    /// Deeper nesting is refused (KeePass nests groups a few levels deep).
    static let maxDepth = 256

    private let bytes: UnsafeRawBufferPointer
    private var i = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The root element of `bytes` (UTF-8, checked by the caller).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws -> XMLElement {
        var reader = XMLReader(bytes)
        return try reader.document()
    }

    // MARK: Document

    private mutating func document() throws -> XMLElement {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        if starts("<?xml") && isSpace(at: i + 5) { try skipPast("?>", what: .xmlDeclaration) }
        try misc(allowDoctype: true)
        guard starts("<"), i + 1 < bytes.count, isNameStart(bytes[i + 1]) else { throw fail(.noRootElement) }
        let root = try element()
        try misc(allowDoctype: false)
        guard i == bytes.count else { throw fail(.extraContent) }
        return root
    }

    /// Whitespace, comments and processing instructions outside the root element (and one DOCTYPE before it).
    private mutating func misc(allowDoctype: Bool) throws {
        var doctypeSeen = false
        while i < bytes.count {
            if isSpace(at: i) { i += 1 } else if starts("<!--") { try comment() } else if starts("<?") { try processingInstruction() } else if starts("<!DOCTYPE") {
                guard allowDoctype, !doctypeSeen else { throw fail(.misplacedDoctype) }
                doctypeSeen = true
                try doctype()
            } else { return }
        }
    }

    /// `<!DOCTYPE name ...>` without an internal subset; one with entity or element declarations is refused.
    private mutating func doctype() throws {
        var quote: UInt8?
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote { if b == q { quote = nil } } else if b == 0x22 || b == 0x27 { quote = b } else if b == 0x5B {
                throw fail(.internalSubset)
            } else if b == 0x3E { i += 1; return }
            i += 1
        }
        throw fail(.notClosed(.doctype))
    }

    private mutating func comment() throws {
        i += 4
        try skipPast("-->", what: .comment)
    }

    private mutating func processingInstruction() throws {
        i += 2
        guard i < bytes.count, isNameStart(bytes[i]) else { throw fail(.processingInstructionWithoutTarget) }
        if starts("xml"), i + 3 < bytes.count, !isNameByte(bytes[i + 3]) { throw fail(.misplacedDeclaration) }
        try skipPast("?>", what: .processingInstruction)
    }

    // MARK: Elements

    private mutating func element() throws -> XMLElement {
        var stack: [XMLElement] = []
        var text: [[UInt8]] = []
        var root: XMLElement?
        repeat {
            if starts("</") {
                i += 2
                let name = try self.name()
                skipSpaces()
                guard i < bytes.count, bytes[i] == 0x3E else { throw fail(.endTagNotClosed(name)) }
                i += 1
                guard let open = stack.popLast() else { throw fail(.endTagWithoutStartTag) }
                guard open.name == name else { throw fail(.mismatchedEndTag(start: open.name, end: name)) }
                open.text = String(decoding: text.removeLast(), as: UTF8.self)
            } else if starts("<!--") {
                try comment()
            } else if starts("<![CDATA[") {
                i += 9
                let start = i
                try skipPast("]]>", what: .cdataSection)
                guard !text.isEmpty else { throw fail(.cdataOutsideRoot) }
                try appendText(start..<(i - 3), to: &text[text.count - 1], references: false)
            } else if starts("<?") {
                try processingInstruction()
            } else if starts("<") {
                i += 1
                let name = try self.name()
                let attributes = try self.attributes(of: name)
                let e = XMLElement(name: name, attributes: attributes)
                if let parent = stack.last { parent.children.append(e) } else if root == nil { root = e } else {
                    throw fail(.extraContent)
                }
                if starts("/>") {
                    i += 2
                } else {
                    guard i < bytes.count, bytes[i] == 0x3E else { throw fail(.startTagNotClosed(name)) }
                    i += 1
                    guard stack.count < Self.maxDepth else { throw fail(.tooDeep(limit: Self.maxDepth)) }
                    stack.append(e)
                    text.append([])
                }
            } else {
                // Character data up to the next markup.
                let start = i
                while i < bytes.count, bytes[i] != 0x3C { i += 1 }
                guard !text.isEmpty else { throw fail(.textOutsideRoot) }
                try appendText(start..<i, to: &text[text.count - 1], references: true)
            }
            guard i < bytes.count || stack.isEmpty else { throw fail(.elementNotClosed(stack.last!.name)) }
        } while !stack.isEmpty
        return root!
    }

    private mutating func attributes(of element: String) throws -> [String: String] {
        var attributes: [String: String] = [:]
        while true {
            let before = i
            skipSpaces()
            guard i < bytes.count else { throw fail(.startTagNotClosed(element)) }
            if bytes[i] == 0x3E || starts("/>") { return attributes }
            guard i > before else { throw fail(.attributesNotSeparated(element: element)) }
            let name = try self.name()
            skipSpaces()
            guard i < bytes.count, bytes[i] == 0x3D else { throw fail(.attributeWithoutValue(name, element: element)) }
            i += 1
            skipSpaces()
            guard i < bytes.count, bytes[i] == 0x22 || bytes[i] == 0x27 else { throw fail(.attributeNotQuoted(name)) }
            let quote = bytes[i]
            i += 1
            let start = i
            while i < bytes.count, bytes[i] != quote {
                guard bytes[i] != 0x3C else { throw fail(.lessThanInAttribute(name)) }
                i += 1
            }
            guard i < bytes.count else { throw fail(.attributeNotClosed(name)) }
            var value: [UInt8] = []
            try appendText(start..<i, to: &value, references: true, attribute: true)
            i += 1
            guard attributes.updateValue(String(decoding: value, as: UTF8.self), forKey: name) == nil else {
                throw fail(.duplicateAttribute(name, element: element))
            }
        }
    }

    private mutating func name() throws -> String {
        let start = i
        guard i < bytes.count, isNameStart(bytes[i]) else { throw fail(.nameExpected) }
        while i < bytes.count, isNameByte(bytes[i]) { i += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
    }

    // MARK: Text

    /// Appends the bytes of `range` to `out` as XML reads them: line ends as "\n", references decoded (unless in a
    /// CDATA section), white space in an attribute value as spaces; characters XML does not allow are refused.
    private func appendText(_ range: Range<Int>, to out: inout [UInt8], references: Bool, attribute: Bool = false) throws {
        var j = range.lowerBound
        while j < range.upperBound {
            let b = bytes[j]
            switch b {
            case 0x0D:
                out.append(attribute ? 0x20 : 0x0A)
                j += j + 1 < range.upperBound && bytes[j + 1] == 0x0A ? 2 : 1
            case 0x09, 0x0A:
                out.append(attribute ? 0x20 : b)
                j += 1
            case 0x26 where references:
                guard let semicolon = (j..<range.upperBound).first(where: { bytes[$0] == 0x3B }) else { throw fail(.ampersandWithoutReference, at: j) }
                let reference = UnsafeRawBufferPointer(rebasing: bytes[(j + 1)..<semicolon])
                guard let scalar = Self.reference(reference) else {
                    throw fail(.undefinedReference(String(decoding: reference, as: UTF8.self)), at: j)
                }
                out += String(scalar).utf8
                j = semicolon + 1
            case 0x00..<0x20:
                throw fail(.characterNotAllowed(UInt32(b)), at: j)
            case 0xEF where j + 2 < range.upperBound && bytes[j + 1] == 0xBF && (bytes[j + 2] == 0xBE || bytes[j + 2] == 0xBF):
                throw fail(.characterNotAllowed(bytes[j + 2] == 0xBE ? 0xFFFE : 0xFFFF), at: j)
            default:
                out.append(b)
                j += 1
            }
        }
    }

    /// The scalar of `&name;` (without `&` and `;`): the five predefined entities and `#N` / `#xN`.
    static func reference(_ name: UnsafeRawBufferPointer) -> Unicode.Scalar? {
        switch String(decoding: name, as: UTF8.self) {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "apos": return "'"
        case "quot": return "\""
        case let s where s.hasPrefix("#x"):
            // (Digits only: UInt32's parser would also take a sign.)
            guard s.count > 2, s.dropFirst(2).allSatisfy(\.isHexDigit) else { return nil }
            return UInt32(s.dropFirst(2), radix: 16).flatMap(allowedScalar)
        case let s where s.hasPrefix("#"):
            guard s.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return UInt32(s.dropFirst(), radix: 10).flatMap(allowedScalar)
        default: return nil
        }
    }

    /// XML 1.0's `Char`: tab, line feed, carriage return and U+0020 on, without surrogates, U+FFFE and U+FFFF.
    static func allowedScalar(_ v: UInt32) -> Unicode.Scalar? {
        guard v == 0x09 || v == 0x0A || v == 0x0D || (v >= 0x20 && v != 0xFFFE && v != 0xFFFF) else { return nil }
        return Unicode.Scalar(v)
    }

    // MARK: Bytes

    private func starts(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        let p = s.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { return false }
        return true
    }

    private mutating func skipPast(_ end: StaticString, what: InterchangeError.XMLProblem.Markup) throws {
        while i < bytes.count {
            if starts(end) { i += end.utf8CodeUnitCount; return }
            i += 1
        }
        throw fail(.notClosed(what))
    }

    private func isSpace(at j: Int) -> Bool {
        j < bytes.count && (bytes[j] == 0x20 || bytes[j] == 0x09 || bytes[j] == 0x0A || bytes[j] == 0x0D)
    }

    private mutating func skipSpaces() { while isSpace(at: i) { i += 1 } }

    /// Letters, `_`, `:` and every non-ASCII byte start a name; digits, `-` and `.` may follow.
    private func isNameStart(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b == 0x3A || b >= 0x80
    }

    private func isNameByte(_ b: UInt8) -> Bool {
        isNameStart(b) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E
    }

    private func fail(_ problem: InterchangeError.XMLProblem, at position: Int? = nil) -> Failure {
        let end = min(position ?? i, bytes.count)
        return Failure(line: 1 + bytes[..<end].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, problem: problem)
    }
}
