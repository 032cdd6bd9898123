// Errors of the import and export layer, with the file or item they concern and what was found; the CLI words them.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TresorCore

/// Why an item of the source was not imported.
public enum SkipReason: Equatable, Sendable {
    /// An entry is already at the path and the import does not replace it.
    case exists(path: String)
    /// An entry is already at the path with the same values.
    case identical(path: String)
    /// The path differs only by case from an existing entry's.
    case caseCollision(path: String, existing: String)
    /// No valid entry path could be made.
    case invalidPath(PathRule.Failure)
    /// A field the entry cannot hold (invalid UTF-8, a name that stays invalid).
    case invalidField(CoreError)
    /// In the source's recycle bin or trash.
    case deleted
    /// A kind of item this reader does not import.
    case unsupported(UnsupportedItem)
    /// The item could not be decrypted or parsed.
    case unreadable(InterchangeError)
}

/// Kinds of item a reader leaves out.
public enum UnsupportedItem: Equatable, Sendable {
    /// A Bitwarden item of this type number (a card, an identity, …).
    case bitwardenItemType(Int)
    /// An `.age` secret in a gopass store.
    case ageSecret
    /// A symbolic link in a pass store.
    case symbolicLink
}

/// Every failure of TresorInterchange. Cases carry the file, item and underlying cause; the CLI words them.
public enum InterchangeError: Error, Equatable, Sendable {
    /// The source file or directory is missing or unreadable.
    case cannotRead(path: String, ReadProblem)
    /// The source is not in the expected format.
    case malformed(path: String, SourceProblem)
    /// The source is encrypted with a key the caller did not give, or the key is wrong.
    case wrongKey(path: String)
    /// The source uses a feature this reader does not implement.
    case unsupported(path: String, feature: Feature)
    /// A helper program (gpg) is missing (`status` 127 and no message) or failed: the program, the file, its exit
    /// status and its own message (its standard error).
    case toolFailed(program: String, path: String, status: Int32, message: String)
    /// An output that would overwrite something (path).
    case outputExists(path: String)
    /// An output could not be written.
    case cannotWrite(path: String, WriteProblem)
    /// A value an export format cannot represent (entry path, what).
    case unrepresentable(path: String, Unrepresentable)
    /// A Tresor-level failure (invalid path, field) while converting.
    case core(CoreError)

    /// Why a source could not be read.
    public enum ReadProblem: Equatable, Sendable {
        /// A system call failed with `errno`.
        case errno(Int32)
        /// A file was expected and `path` is a directory.
        case isDirectory
        /// A directory was expected and there is none.
        case noSuchDirectory
        /// A directory was expected and `path` is something else.
        case notADirectory
    }

    /// Why an output could not be written.
    public enum WriteProblem: Equatable, Sendable {
        /// A system call failed with `errno`.
        case errno(Int32)
        /// Writing the file the vault's way failed.
        case core(CoreError)
        /// zlib could not start compressing.
        case zlib
        /// An error of another layer, as Swift describes the value (not expected).
        case other(String)
    }

    /// A value an export format cannot hold.
    public enum Unrepresentable: Equatable, Sendable {
        /// pass keeps the password on the first line: it cannot have a line break.
        case passwordLineBreak
    }

    /// A feature of a source this reader does not implement.
    public enum Feature: Equatable, Sendable {
        /// A Bitwarden export encrypted by Bitwarden (export as unencrypted JSON).
        case encryptedBitwardenExport
        /// A KDBX file of this major version (3 and 4 are read).
        case kdbxVersion(Int)
        /// A KDBX cipher other than AES-256 and ChaCha20 (its UUID).
        case cipher(String)
        /// ChaCha20 in a KDBX 3 file.
        case chacha20InKDBX3
        /// AES-KDF with more rounds than `maximum`.
        case aesRounds(UInt64, maximum: UInt64)
        /// A KDF other than AES-KDF and Argon2 (its UUID).
        case kdf(String)
        /// Argon2 parameters beyond what is read (memory in bytes).
        case argon2(memory: UInt64, iterations: UInt64, lanes: UInt64, version: UInt64)
        /// Argon2 parameters libargon2 refused.
        case argon2Refused
        /// A protected-value stream other than Salsa20 and ChaCha20 (its number).
        case protectedStream(Int)
        /// A KDF parameter dictionary of this major version.
        case kdfParametersVersion(Int)
    }

    /// Why a source file is not in the format it was read as.
    public enum SourceProblem: Equatable, Sendable {
        // Any format
        /// The text is not UTF-8.
        case notUTF8
        /// Larger than `limit` bytes.
        case tooLarge(limit: Int)
        /// Not JSON (where and why).
        case notJSON(JSONValue.ParseError)
        /// The top level is not a JSON object.
        case notAnObject
        /// The top level is not a JSON array.
        case notAnArray
        /// A member the format always has is missing (or of the wrong type).
        case missingMember(String)
        /// An item (number `index`, from 1, when known) is not an object of the format's entries.
        case badItem(index: Int?)
        /// A history item of the entry at `path` lacks its field, value or time.
        case badHistoryItem(path: String)
        /// An error of another layer, as Swift describes the value (not expected).
        case other(String)
        // CSV
        /// No header row.
        case noHeaderRow
        /// No column of this name; `columns` are those there are.
        case missingColumn(String, columns: [String])
        // Archives (1PUX)
        /// Not a zip archive.
        case notZip
        /// The archive has no member of this name.
        case missingArchiveMember(String)
        /// The archive member is larger than `limit` bytes unpacked.
        case archiveMemberTooLarge(String, limit: Int)
        /// The archive member does not unpack.
        case unpack(String, ArchiveDamage)
        // XML
        /// The XML does not parse at `line`.
        case xml(line: Int, XMLProblem)
        /// No XML at all.
        case emptyXML
        /// XML without KeePassFile/Root/Group.
        case notKeePassXML
        // gzip
        /// zlib could not start.
        case zlib
        /// The compressed data is damaged.
        case compressedDataDamaged
        /// The compressed data ends early.
        case compressedDataTruncated
        /// The data decompresses to more than `limit` bytes.
        case decompressedTooLarge(limit: Int)
        // KDBX
        /// The file does not start with the KeePass signature.
        case notKeePass
        /// The header lacks the cipher, master seed or IV.
        case headerIncomplete
        /// The header lacks the KDF parameters, or they name no KDF.
        case kdfParametersMissing
        /// The KDF's parameters are incomplete.
        case kdfParametersIncomplete
        /// The header checksum does not match (a damaged file).
        case headerChecksum
        /// A block with a negative size.
        case negativeBlockSize
        /// Block `index` fails its HMAC (a damaged file).
        case blockMAC(index: Int)
        /// A block fails its hash (a damaged file).
        case blockHash
        /// The payload does not decrypt (a damaged file).
        case payloadDoesNotDecrypt
        /// An IV of the wrong length for the cipher (`expected` bytes).
        case ivLength(expected: Int)
        /// The file ends at byte `offset`, inside a record.
        case truncated(offset: Int)
        /// Protected values in a file that gives no key for them.
        case protectedValueWithoutKey
        /// A protected value that is not base64.
        case protectedValueNotBase64
    }

    /// Why a member of a zip archive does not unpack.
    public enum ArchiveDamage: Equatable, Sendable {
        /// The member is encrypted.
        case encrypted
        /// The member's local header is missing.
        case localHeaderMissing
        /// The member's data runs past the end of the archive.
        case truncated
        /// The deflated data does not inflate.
        case compressedDataDamaged
        /// A compression method other than stored (0) and deflate (8).
        case compressionMethod(Int)
        /// The unpacked size is not the one the archive gives.
        case sizeMismatch
        /// The CRC-32 does not match.
        case checksumMismatch
    }

    /// What is wrong with an XML document (the importers' reader takes no DTD, so a document that declares
    /// entities is refused rather than expanded).
    public enum XMLProblem: Equatable, Sendable {
        /// No root element.
        case noRootElement
        /// Something after the root element.
        case extraContent
        /// A second DOCTYPE, or one after the root element.
        case misplacedDoctype
        /// A DOCTYPE with an internal subset (the document declares its own entities or elements).
        case internalSubset
        /// A construct that is not closed.
        case notClosed(Markup)
        /// A processing instruction without a target.
        case processingInstructionWithoutTarget
        /// An XML declaration that is not at the start.
        case misplacedDeclaration
        /// The end tag `</name>` is not closed.
        case endTagNotClosed(String)
        /// An end tag without a start tag.
        case endTagWithoutStartTag
        /// The start tag `<start>` ends with `</end>`.
        case mismatchedEndTag(start: String, end: String)
        /// A CDATA section outside the root element.
        case cdataOutsideRoot
        /// The start tag `<name>` is not closed.
        case startTagNotClosed(String)
        /// Elements nested deeper than `limit`.
        case tooDeep(limit: Int)
        /// Text outside the root element.
        case textOutsideRoot
        /// The element `<name>` is not closed before the document ends.
        case elementNotClosed(String)
        /// The attributes of `<element>` are not separated by white space.
        case attributesNotSeparated(element: String)
        /// The attribute `name` of `<element>` has no value.
        case attributeWithoutValue(String, element: String)
        /// The value of the attribute `name` is not quoted.
        case attributeNotQuoted(String)
        /// The value of the attribute `name` holds `<`.
        case lessThanInAttribute(String)
        /// The value of the attribute `name` is not closed.
        case attributeNotClosed(String)
        /// The attribute `name` appears twice in `<element>`.
        case duplicateAttribute(String, element: String)
        /// A name was expected.
        case nameExpected
        /// An `&` that starts no reference.
        case ampersandWithoutReference
        /// `&name;` is neither a predefined entity nor a character reference to a character XML allows.
        case undefinedReference(String)
        /// A character XML does not allow (a control character, U+FFFE or U+FFFF).
        case characterNotAllowed(UInt32)

        /// The kinds of markup that can be left open.
        public enum Markup: Equatable, Sendable {
            /// `<?xml … ?>`.
            case xmlDeclaration
            /// `<!DOCTYPE … >`.
            case doctype
            /// `<!-- … -->`.
            case comment
            /// `<![CDATA[ … ]]>`.
            case cdataSection
            /// `<?target … ?>`.
            case processingInstruction
        }
    }
}
