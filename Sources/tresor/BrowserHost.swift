// The browserpass native-messaging host: length-prefixed JSON requests on stdin, replies on stdout (README "Browser autofill").
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

/// Speaks the browserpass host protocol (version 3: configure, list, tree, fetch, save, delete, echo) to the
/// browser extension. Each message is a 4-byte length in the machine's byte order and that many bytes of JSON; the
/// host answers each request with one message and ends when its input ends. A request it cannot read gets an
/// error reply (never a crash): a length it cannot read or larger than 1 MiB, or a message cut short, ends the
/// host after the reply (the stream cannot be trusted any more); bad JSON or an unknown action does not.
struct BrowserHost {
    /// The version replies carry: browserpass-native 3.1.0, whose protocol this is (the extension asks for 3.0.3+).
    static let version = 3_001_000
    static let maxRequest = 1 << 20
    /// Browsers refuse a message from a host above 1 MiB.
    static let maxReply = 1 << 20

    /// The vault used when the extension configures no store: --vault, else $TRESOR_VAULT, else ~/.tresor.
    let options: VaultOptions
    let input: Int32
    let output: Int32

    // Error codes of the protocol (browserpass-native's PROTOCOL.md).
    enum Code: Int {
        case requestLength = 10, request = 11, action = 12, store = 13, defaultStore = 14, list = 18, storeID = 20,
             fileExtension = 23, decrypt = 24, tree = 25, contents = 27, encrypt = 29, delete = 30
    }

    struct Failure: Error {
        let code: Code
        let params: [String: String]
    }

    /// Serves requests until the input ends (or cannot be read).
    func serve() {
        while true {
            let next = readMessage()
            switch next {
            case .end: return
            case .fatal(let failure):
                send(errorReply(failure))
                return
            case .message(var bytes):
                defer { SecretBytes.wipe(&bytes) }
                let reply: SecretBytes
                do {
                    let request = try BrowserRequest(parsing: &bytes)
                    reply = try handle(request)
                } catch let e as BrowserRequest.Malformed {
                    reply = errorReply(Failure(code: .request, params: ["message": "Unable to parse the browser request", "error": e.message]))
                } catch let f as Failure {
                    reply = errorReply(f)
                } catch {
                    reply = errorReply(Failure(code: .request, params: ["message": "\(error)"]))
                }
                send(reply)
            }
        }
    }

    enum Next { case message([UInt8]), end, fatal(Failure) }

    func readMessage() -> Next {
        func unreadable(_ e: FileSystem.Failure) -> Next {
            .fatal(Failure(code: .request, params: ["message": "Unable to read the browser request", "error": String(cString: strerror(e.errno))]))
        }
        var head = [UInt8](repeating: 0, count: 4)
        let got: Int
        do { got = try readFully(&head) } catch { return unreadable(error) }
        if got == 0 { return .end }
        guard got == 4 else {
            return .fatal(Failure(code: .requestLength, params: ["message": "Unable to parse the length of the browser request",
                                                                 "error": "the input ended after \(got) of the 4 bytes of a length"]))
        }
        let length = Int(head.withUnsafeBytes { $0.load(as: UInt32.self) })
        guard length <= BrowserHost.maxRequest else {
            return .fatal(Failure(code: .requestLength, params: ["message": "The browser request is too long",
                                                                 "error": "\(length) bytes; tresor reads requests of up to \(BrowserHost.maxRequest) bytes"]))
        }
        var body = [UInt8](repeating: 0, count: length)
        let n: Int
        do { n = try readFully(&body) } catch { SecretBytes.wipe(&body); return unreadable(error) }
        guard n == length else {
            SecretBytes.wipe(&body)
            return .fatal(Failure(code: .request, params: ["message": "Unable to parse the browser request",
                                                           "error": "the input ended after \(n) of \(length) bytes"]))
        }
        return .message(body)
    }

    /// Reads until `buffer` is full or the input ends; the number of bytes read. - Throws: `FileSystem.Failure`.
    func readFully(_ buffer: inout [UInt8]) throws(FileSystem.Failure) -> Int {
        let input = self.input
        return try buffer.withUnsafeMutableBytes { b in
            Result { () throws(FileSystem.Failure) in try FileSystem.readFully(input, into: b, path: "standard input") }
        }.get()
    }

    func send(_ reply: SecretBytes) {
        var length = UInt32(reply.count)
        var frame = SecretByteBuilder(capacity: reply.count + 4)
        withUnsafeBytes(of: &length) { frame.append($0) }
        reply.withBytes { frame.append($0) }
        // (The browser that asked has gone when its pipe fails: there is no one to tell.)
        _ = frame.finish().withBytes { b in Result { () throws(FileSystem.Failure) in try FileSystem.writeAll(output, b, path: "standard output") } }
    }

    func okReply(_ data: JSONValue?) -> SecretBytes {
        var o: [String: JSONValue] = ["status": .string("ok"), "version": .integer(BrowserHost.version)]
        if let data { o["data"] = data }
        let bytes = JSONValue.object(o).canonicalSecretBytes()
        guard bytes.count <= BrowserHost.maxReply else {
            return errorReply(Failure(code: .list, params: ["message": "The reply is larger than the 1 MiB a browser accepts from a host",
                                                            "error": "\(bytes.count) bytes"]))
        }
        return bytes
    }

    func errorReply(_ f: Failure) -> SecretBytes {
        JSONValue.object(["status": .string("error"), "code": .integer(f.code.rawValue), "version": .integer(BrowserHost.version),
                          "params": .object(f.params.mapValues(JSONValue.string))]).canonicalSecretBytes()
    }

    // MARK: actions

    /// A store the extension names: its id, name and folder (a vault).
    struct Store {
        let id: String
        let name: String
        let path: String
    }

    var defaultDirectory: String { options.directory }

    /// The stores of the request's settings, or the default vault as the store "default".
    func stores(_ request: BrowserRequest) -> [Store] {
        var out: [Store] = []
        if case .object(let settings)? = request.object["settings"], case .object(let stores)? = settings["stores"] {
            for (id, value) in stores.sorted(by: { $0.key < $1.key }) {
                guard case .object(let s) = value else { continue }
                out.append(Store(id: id, name: s["name"]?.stringValue ?? "", path: expand(s["path"]?.stringValue ?? "")))
            }
        }
        return out.isEmpty ? [Store(id: "default", name: "tresor", path: defaultDirectory)] : out
    }

    func expand(_ path: String) -> String {
        let home = ProcessEnvironment.value("HOME") ?? PathName.home()
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        return path.isEmpty ? defaultDirectory : path
    }

    func handle(_ request: BrowserRequest) throws -> SecretBytes {
        guard let action = request.action else {
            throw Failure(code: .action, params: ["message": "The browser request names no action", "action": ""])
        }
        switch action {
        case "configure": return try configure(request)
        case "list": return try list(request)
        case "tree": return try tree(request)
        case "fetch": return try fetch(request)
        case "save": return try save(request)
        case "delete": return try delete(request)
        case "echo":
            return (request.object["echoResponse"] ?? .null).canonicalSecretBytes()
        default:
            throw Failure(code: .action, params: ["message": "Invalid request action", "action": action])
        }
    }

    /// A message for the popup: the error's first line, without tresor's hints about the command line.
    static func describe(_ error: Error) -> String {
        let message = ErrorReport.of(error)?.message ?? "\(error)"
        return message.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("hint: ") }.joined(separator: "; ")
    }

    func storeFailure(_ code: Code, _ action: String, _ store: Store, _ error: Error, file: String? = nil) -> Failure {
        var params = ["message": BrowserHost.describe(error), "action": action, "error": BrowserHost.describe(error),
                      "storeId": store.id, "storeName": store.name, "storePath": store.path]
        if let file { params["file"] = file }
        return Failure(code: code, params: params)
    }

    func openVault(_ store: Store, unlock: Bool) throws -> Vault {
        var o = options
        o.vault = store.path
        return try o.open(unlock: unlock, interactive: false)
    }

    func configure(_ request: BrowserRequest) throws -> SecretBytes {
        var settings: [String: JSONValue] = [:]
        let configured: [Store]
        if case .object(let s)? = request.object["settings"], case .object(let st)? = s["stores"], !st.isEmpty { configured = stores(request) } else { configured = [] }
        for store in configured {
            do { _ = try openVault(store, unlock: false) } catch { throw storeFailure(.store, "configure", store, error) }
            settings[store.id] = .string("{}")
        }
        if configured.isEmpty {
            let store = Store(id: "default", name: "tresor", path: defaultDirectory)
            do { _ = try openVault(store, unlock: false) } catch {
                throw Failure(code: .defaultStore, params: ["message": BrowserHost.describe(error), "action": "configure",
                                                            "error": BrowserHost.describe(error), "storePath": store.path])
            }
        }
        return okReply(.object(["defaultStore": .object(["path": .string(defaultDirectory), "settings": .string("{}")]),
                                "storeSettings": .object(settings)]))
    }

    func files(_ store: Store, action: String, code: Code) throws -> [String] {
        do { return try openVault(store, unlock: true).browserFiles() } catch { throw storeFailure(code, action, store, error) }
    }

    func list(_ request: BrowserRequest) throws -> SecretBytes {
        var out: [String: JSONValue] = [:]
        for store in stores(request) { out[store.id] = .array(try files(store, action: "list", code: .list).map(JSONValue.string)) }
        return okReply(.object(["files": .object(out)]))
    }

    func tree(_ request: BrowserRequest) throws -> SecretBytes {
        var out: [String: JSONValue] = [:]
        for store in stores(request) {
            out[store.id] = .array(BrowserStore.directories(of: try files(store, action: "tree", code: .tree)).map(JSONValue.string))
        }
        return okReply(.object(["directories": .object(out)]))
    }

    /// The store and file a fetch, save or delete names.
    func target(_ request: BrowserRequest, _ action: String) throws -> (Store, String) {
        let all = stores(request)
        let id = request.storeID ?? (all.count == 1 ? all[0].id : "")
        guard let store = all.first(where: { $0.id == id }) else {
            throw Failure(code: .storeID, params: ["message": "Invalid password store ID", "action": action, "storeId": id])
        }
        guard let file = request.file, file.hasSuffix(".gpg") else {
            throw Failure(code: .fileExtension, params: ["message": "Invalid password file extension", "action": action, "file": request.file ?? ""])
        }
        return (store, file)
    }

    func fetch(_ request: BrowserRequest) throws -> SecretBytes {
        let (store, file) = try target(request, "fetch")
        do {
            let vault = try openVault(store, unlock: true)
            let (entry, host) = try vault.browserEntry(file: file)
            let text = BrowserStore.contents(of: entry, host: host)
            guard let contents = SecretText(validating: text) else { throw CLIError("the entry is not UTF-8 text") }
            return okReply(.object(["contents": .secret(contents)]))
        } catch { throw storeFailure(.decrypt, "fetch", store, error, file: file) }
    }

    func save(_ request: BrowserRequest) throws -> SecretBytes {
        let (store, file) = try target(request, "save")
        guard let contents = request.contents ?? request.object["contents"]?.stringValue.map({ SecretText($0) }), !contents.isEmpty else {
            throw Failure(code: .contents, params: ["message": "The entry contents is missing", "action": "save"])
        }
        do {
            let vault = try openVault(store, unlock: true)
            try vault.saveFromBrowser(file: file, contents: contents)
            VaultOptions.printWarnings()
            return okReply(nil)
        } catch { throw storeFailure(.encrypt, "save", store, error, file: file) }
    }

    func delete(_ request: BrowserRequest) throws -> SecretBytes {
        let (store, file) = try target(request, "delete")
        do {
            let vault = try openVault(store, unlock: true)
            let (entry, _) = try vault.browserEntry(file: file)
            try vault.remove(entry.path)
            VaultOptions.printWarnings()
            return okReply(nil)
        } catch { throw storeFailure(.delete, "delete", store, error, file: file) }
    }
}

extension BrowserRequest.Malformed {
    /// Why the request was not read, for the extension's error reply.
    var message: String {
        switch self {
        case .contents: return "the member contents is not a valid JSON string"
        case .notJSON(let e): return e.message
        case .notAnObject: return "a request is a JSON object"
        }
    }
}
