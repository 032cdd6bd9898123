// Vectors on which TresorCore and the Spec disagree today: each names what the Swift code does, what the vector says,
// and which one the Spec's text supports. The case runs inside `withKnownIssue`, so it is visible in every run and
// reported as unexpectedly passing once the code (or the vector) is fixed: then its line goes.
enum KnownVectorIssues {
    /// Spec/vectors/<name>.json
    static let format: [String: String] = [
        "accept-domain-listing-refused-unlisted":
            "Acceptance.listing names the unlisted scope's id as the refusal's domain; the vector has domain null. AUTH.md §5 and §12: "
            + "domain null where the rule names none, and a scope the vault header does not list is no domain of the tip (vector)",
        "accept-state-record-refused":
            "TreeShape.check refuses two files with one blob id (\"the same file as\"), so Team's record replaced by the vault's is refused "
            + "as tree-shape at .tresor/state/vault.json; the vector expects state-record for Team's record. AUTH.md §5.2 tree-shape "
            + "forbids duplicate tree entries (names), not two files with equal content (vector)",
        "accept-tree-shape-refused-folder":
            "TreeShape.check names the folder item Email/.git; the vector names the file Email/.git/hooks/post-checkout.json. AUTH.md §5 "
            + "output: a refusal names the offending file for tree-shape (vector)",
        "entry-version-2-unknown-member":
            "EntryCipher.openVersion1 parses with Envelope.parse(acceptingVersion1: true), which lets version 2 through, and reports the "
            + "unknown member [malformed]; FORMAT.md §6.2 checks the version first: a reader of version 1 files says [unsupported-version] (vector)",
        "v5-convert-wrong-key":
            "Conversion.convert never verifies the version 1–4 header's tag under the vault key it is given: with another key it goes on "
            + "and fails later ([not-a-recipient] here, the open scope's vault slot does not open; [authentication-failed] at the first "
            + "entry; a vault without scopes or entries is converted under the wrong key). FORMAT.md §9.2: [header-not-authentic] (vector)",
        "v5-header-version-4-shape":
            "VaultHeader.parse reads version 4 by §3.12.1 and fails [malformed] (no generation); FORMAT.md §11.4 reader checks: the "
            + "version step, with 5 the supported version, says [unsupported-version] first. TresorCore has no reader of version 5 "
            + "headers only (Acceptance maps version 4 to format-version after parsing) (vector)",
        "v5-scope-version-1":
            "ScopeHeader.parse reads version 1 and fails [malformed] (no generation); FORMAT.md §11.1: a version 5 reader rejects a scope "
            + "header of version 1 [unsupported-version] (vector)",
        "v5-state-file-added":
            "the added file is a copy of Email/gmail.json: TreeShape.check refuses two files with one blob id as tree-shape before the "
            + "state record is checked; the vector expects [state-files] (FORMAT.md §11.6); AUTH.md §5.2 has no rule against equal "
            + "contents (vector)",
        "v5-header-order-slot-fields-before-slot-members":
            "KeySlot(version5:) checks the slot's member names before §3.4 step 6 and reports the member zNew [malformed]; the vector "
            + "(FORMAT.md §11.4: \"each slot in file order by §3.4 step 6, a passphrase slot … having exactly their members\") checks "
            + "the 15-byte salt first [bad-encoding] (vector)",
        "v5-rekey-vault-two-passphrase-slots":
            "the input header lists its passphrase slots as written (3d2b…, then 0717e…); VaultAuthenticator.verify tags the library's "
            + "model, whose JSON sorts slots by id, not the header as parsed, and refuses an authentic header [header-not-authentic]. "
            + "FORMAT.md §11.4: the tag covers the header as parsed, computed from the parsed JSON value (vector)",
    ]
    /// Spec/vectors/join/<name>.json
    static let join: [String: String] = [
        "deletion-concurrent-with-edit":
            "StateJoin reports edit-delete-kept-edit for the kept entry (MERGE.md §4.2 and §9 as amended in 80f8658); the vector, written "
            + "before, expects no record (Swift: the vector is stale)",
        "issue21-cause-a":
            "StateJoin reports edit-delete-kept-edit for the kept entry (MERGE.md §4.2 and §9 as amended in 80f8658); the vector, written "
            + "before, expects no record (Swift: the vector is stale)",
        "domains-unread-domain-concurrent":
            "StateJoin.join is given every domain's clock and which domains it reads, but does not stop when a domain it does not read "
            + "has concurrent clocks on the two sides; only Vault.wholeDomain (Sources/Tresor/Sync+Join.swift) does. MERGE.md §4.4: "
            + "the join stops [domain-conflict] (vector)",
    ]
}
