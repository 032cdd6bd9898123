// Reads a pass or gopass store (one gpg file per secret, folders as paths) and writes a pass store.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import TresorCore

/// A password store in pass's layout: `FOLDER/NAME.gpg` files encrypted to the ids in `.gpg-id`.
public enum PassStore {
    /// Reads every `.gpg` file below `directory` (hidden files and folders such as `.git` are left out,
    /// links are not followed), decrypting with `gpg`. Up to `parallelism` files are decrypted at once
    /// after the first (which may have asked for the key's passphrase). A file that does not decrypt is
    /// reported as skipped; the others are imported.
    public static func read(_ directory: String, gopass: Bool, gpg: GPG, parallelism: Int = 4,
                            progress: @escaping (Int, Int) -> Void = { _, _ in }) throws -> InterchangeDocument {
        guard FileSystem.kind(directory) == .directory else {
            throw InterchangeError.cannotRead(path: directory, FileSystem.kind(directory) == .missing ? .noSuchDirectory : .notADirectory)
        }
        var files: [String] = []
        var skipped: [(name: String, reason: SkipReason)] = []
        func walk(_ rel: String) {
            for name in FileSystem.list(rel.isEmpty ? directory : directory + "/" + rel) where !name.hasPrefix(".") {
                let r = rel.isEmpty ? name : rel + "/" + name
                switch FileSystem.kind(directory + "/" + r) {
                case .directory: walk(r)
                case .file where name.hasSuffix(".gpg") && name.count > 4: files.append(r)
                case .file where name.hasSuffix(".age"): skipped.append((r, .unsupported(.ageSecret)))
                case .symlink: skipped.append((r, .unsupported(.symbolicLink)))
                default: continue
                }
            }
        }
        walk("")
        var results = [Result<InterchangeEntry, InterchangeError>?](repeating: nil, count: files.count)
        let lock = ThreadLock()
        var done = 0
        func one(_ i: Int) {
            let rel = files[i]
            var parts = rel.split(separator: "/").map(String.init)
            let title = String(parts.removeLast().dropLast(4))
            var item = InterchangeEntry(folder: parts, title: title)
            let r: Result<InterchangeEntry, InterchangeError>
            do {
                let content = try gpg.decrypt(directory + "/" + rel)
                try PassText.parse(content, into: &item, yaml: gopass, file: rel)
                if let m = try? FileManager.default.attributesOfItem(atPath: directory + "/" + rel)[.modificationDate] as? Date {
                    item.modified = Timestamp(m)
                }
                r = .success(item)
            } catch let e as InterchangeError { r = .failure(e) } catch { r = .failure(.malformed(path: rel, .other(String(reflecting: error)))) }
            lock.lock(); results[i] = r; done += 1; let d = done; lock.unlock()
            progress(d, files.count)
        }
        if !files.isEmpty { one(0) }
        if files.count > 1 {
            let rest = Array(1..<files.count)
            let lanes = max(1, min(parallelism, rest.count))
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                for k in stride(from: lane, to: rest.count, by: lanes) { one(rest[k]) }
            }
        }
        var doc = InterchangeDocument(entries: [], skipped: skipped)
        for (i, r) in results.enumerated() {
            switch r! {
            case .success(let e): doc.entries.append(e)
            case .failure(let e): doc.skipped.append((String(files[i].dropLast(4)), .unreadable(e)))
            }
        }
        return doc
    }

    /// Writes `entries` as a new pass store in `directory` (which must not exist, or be empty), each
    /// secret encrypted to `recipients` with `gpg` (up to `parallelism` at once), and `.gpg-id` naming
    /// them. Folders 0700, files 0600. On failure the files written so far stay (they are encrypted).
    /// - Throws: `.outputExists`, `.cannotWrite`, `.toolFailed`, `.unrepresentable`.
    public static func write(_ entries: [InterchangeEntry], to directory: String, recipients: [String], gpg: GPG, parallelism: Int = 4,
                             progress: @escaping (Int, Int) -> Void = { _, _ in }) throws {
        switch FileSystem.kind(directory) {
        case .missing:
            do { try FileSystem.makeDirectory(directory) }
            catch { throw InterchangeError.cannotWrite(path: directory, .errno(error.errno)) }
        case .directory:
            guard FileSystem.list(directory).isEmpty else { throw InterchangeError.outputExists(path: directory) }
        default: throw InterchangeError.outputExists(path: directory)
        }
        do { try FileSystem.writeAtomically(Array((recipients.joined(separator: "\n") + "\n").utf8), to: directory + "/.gpg-id") }
        catch let e as CoreError { throw InterchangeError.cannotWrite(path: directory + "/.gpg-id", .core(e)) }
        // Folders first (one thread), then up to `parallelism` gpg processes at once.
        var files: [String] = []
        for item in entries {
            let rel = item.vaultPath ?? (item.folder + [item.title]).joined(separator: "/")
            let folder = PathName.deletingLast(rel)
            do { if !folder.isEmpty { try FileSystem.makeDirectories(folder, under: directory) } }
            catch let e as CoreError { throw InterchangeError.cannotWrite(path: directory + "/" + folder, .core(e)) }
            let file = directory + "/" + rel + ".gpg"
            guard FileSystem.kind(file) == .missing, !files.contains(file) else { throw InterchangeError.outputExists(path: file) }
            files.append(file)
        }
        let lock = ThreadLock()
        var failure: InterchangeError?
        var done = 0
        let lanes = max(1, min(parallelism, entries.count))
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            for i in stride(from: lane, to: entries.count, by: lanes) {
                lock.lock(); let stop = failure != nil; lock.unlock()
                if stop { return }
                do {
                    try gpg.encrypt(try PassText.format(entries[i], path: entries[i].vaultPath ?? entries[i].title), recipients: recipients, to: files[i])
                    do throws(FileSystem.Failure) { try FileSystem.setMode(files[i], 0o600) }
                    catch { throw InterchangeError.cannotWrite(path: files[i], .errno(error.errno)) }
                    lock.lock(); done += 1; let d = done; lock.unlock()
                    progress(d, entries.count)
                } catch {
                    lock.lock(); if failure == nil { failure = error as? InterchangeError ?? .cannotWrite(path: files[i], .other(String(reflecting: error))) }; lock.unlock()
                }
            }
        }
        if let failure { throw failure }
    }
}
