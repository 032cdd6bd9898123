// Shared set-up for the vault layer's tests: a temp dir, vaults with the cheapest KDF, a bare remote, replicas.
import Foundation
import TestSupport
@testable import Tresor
@testable import TresorCore
@testable import TresorGit
import XCTest

class VaultTestCase: XCTestCase {
    var dir = ""
    let passphrase = SecretBytes(utf8: "correct horse battery staple")

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "tresor-vault-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// A new vault at `dir/name` (tests never use the default KDF cost).
    func makeVault(_ name: String = "vault") throws -> Vault {
        try Vault.create(at: dir + "/" + name, passphrase: passphrase, level: .minimum)
    }

    /// A bare remote, a first replica that pushed to it, and clones of it, all unlocked.
    func replicas(_ count: Int, seed: (Vault) throws -> Void = { _ in }) throws -> [Vault] {
        let remote = dir + "/remote.git"
        try GitRepository.createBare(at: remote)
        let first = try makeVault("r0")
        try seed(first)
        try first.addRemote(name: "origin", url: remote)
        _ = try first.sync(credentials: .none)
        var all = [first]
        for n in 1..<count {
            let v = try Vault.clone(url: remote, to: dir + "/r\(n)", credentials: .none)
            try v.unlock(passphrase: passphrase)
            try v.completeClone()
            all.append(v)
        }
        return all
    }

    /// A new entry with the given text fields.
    func entry(_ path: String, _ fields: [String: String], origin: String = "test") throws -> Entry {
        var e = Entry(path: try EntryPath(path), change: Change(time: .now(), origin: "test", dot: .placeholder))
        for (name, value) in fields { try e.set(name, .text(SecretText(value)), change: Change(time: .now(), origin: origin, dot: .placeholder)) }
        return e
    }

    /// Sets fields of the entry at `path` in `vault` and saves it.
    @discardableResult
    func edit(_ vault: Vault, _ path: String, _ fields: [String: String]) throws -> SaveOutcome {
        let old = try vault.read(try EntryPath(path))
        var e = old
        for (name, value) in fields { try e.set(name, .text(SecretText(value)), change: Change(time: .now(), origin: vault.deviceID, dot: .placeholder)) }
        return try vault.save(e, basedOn: old)
    }

    /// Every value an entry holds now or in its history.
    func values(_ e: Entry, _ field: String) -> Set<String> {
        var all = Set(e.history.filter { $0.field == field }.map(\.value.displayText))
        if let v = e.fields[field]?.value.displayText { all.insert(v) }
        return all
    }

    func git(_ vault: Vault, _ args: String...) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/git")
        p.arguments = ["-C", vault.root] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
