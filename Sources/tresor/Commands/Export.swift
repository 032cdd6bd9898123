// `tresor export`: write entries as JSON, KeePassXC CSV, or a pass store encrypted to a gpg id.
import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Tresor

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", 
        abstract: "Export entries as JSON, CSV (KeePassXC's columns) or a pass store.",
        discussion: """
            json and csv are plaintext: they go to a pipe, or with --output to a new file (mode 0600; never over an
            existing file; asked first at a terminal). pass writes a new store directory (--output) encrypted to
            --gpg-id with your gpg.
            """)

    @OptionGroup var options: VaultOptions
    @Argument(help: "json, csv or pass.") var format: String
    @Argument(help: "Only entries below this folder.", completion: Completion.folders) var prefix: String?
    @Option(name: [.short, .long], help: ArgumentHelp("A new file (json, csv) or a new or empty directory (pass).", valueName: "path"))
    var output: String?
    @Option(name: .customLong("gpg-id"), help: ArgumentHelp("The gpg key to encrypt a pass store to (repeatable).", valueName: "id"))
    var gpgIDs: [String] = []

    func validate() throws {
        guard let fmt = ExportFormat(rawValue: format.lowercased()) else {
            throw ValidationError("<format>: unknown format \"\(displayable(format))\"; use one of: " + ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))
        }
        if fmt == .pass && (output == nil || gpgIDs.isEmpty) { throw ValidationError("a pass export needs --output DIR and --gpg-id ID") }
        if fmt != .pass && !gpgIDs.isEmpty { throw ValidationError("--gpg-id is for the pass format") }
    }

    func run() throws {
        let fmt = ExportFormat(rawValue: format.lowercased())!
        if fmt.isPlaintext && output == nil { try checkStandardOutput() }
        let vault = try options.open(unlock: true)
        var entries: [Entry] = []
        for (path, result) in try vault.readAll(prefix: prefix) {
            switch result {
            case .success(let e): entries.append(e)
            case .failure(let e):
                throw CLIError("entry \"\(path)\" could not be read, so nothing was exported: \(e.message)\nhint: 'tresor fsck' checks every entry")
            }
        }
        let count = "\(entries.count) entr\(entries.count == 1 ? "y" : "ies")"
        switch fmt {
        case .pass:
            let progress = ProgressLine("Encrypting")
            try PassStore.write(entries.map(EntryConversion.interchange), to: output!, recipients: gpgIDs, gpg: try GPG(),
                                progress: { progress.show($0, $1) })
            progress.finish()
            Output.status("Exported \(count) to the pass store \"\(output!)\", encrypted to \(gpgIDs.joined(separator: ", ")).")
        case .json, .csv:
            let bytes = fmt == .json ? TresorJSON.document(entries).prettySecretBytes(trailingNewline: true) : try CSVExport.export(entries)
            if let output {
                if Prompt.interactive && !Prompt.confirm("Write \(count) with their passwords in plaintext to \"\(output)\"?") {
                    Output.status("Nothing was written.")
                    throw ExitCode(ExitStatus.error)
                }
                try ExportFile.writeNew(bytes, to: output)
                Output.status("Exported \(count) in plaintext to \"\(output)\" (mode 0600). Delete it when you are done.")
            } else {
                try Output.write(secret: bytes)
            }
        }
    }

    /// Plaintext goes to a pipe (or a device such as /dev/null), never to a terminal or a file the shell
    /// opened: such a file may already exist, be readable by others, or end on a disk unnoticed.
    func checkStandardOutput() throws {
        guard let st = try? FileSystem.status(of: STDOUT_FILENO, path: "standard output") else { throw CLIError("standard output is closed") }
        let kind = st.st_mode & S_IFMT
        if isatty(STDOUT_FILENO) == 1 {
            throw CLIError("refusing to print every password to the terminal\nhint: pipe the export into a program, or use --output FILE")
        }
        guard kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFCHR else {
            throw CLIError("refusing to write plaintext passwords to a file through standard output\nhint: use --output FILE, which creates a new file readable only by you")
        }
    }

}
