"""Failure kinds of Spec/FORMAT.md §9.3 (and MERGE.md §10's different-vault)."""

KINDS = ("malformed", "unsupported-version", "bad-encoding", "kdf-out-of-bounds", "authentication-failed",
         "wrong-passphrase", "path-mismatch", "invalid-path", "invalid-field", "symlink", "io",
         "different-vault", "header-not-authentic", "header-replayed", "not-a-recipient", "no-such-member",
         # version 5 (FORMAT §11.6, MERGE.md version 2 §4.2, §4.4)
         "state-files", "not-authentic", "domain-conflict")


class FormatError(Exception):
    """A rejected input: `kind` is one of KINDS, `reason` says which rule broke."""

    def __init__(self, kind, reason):
        assert kind in KINDS, kind
        super().__init__("%s: %s" % (kind, reason))
        self.kind = kind
        self.reason = reason


def fail(kind, reason):
    raise FormatError(kind, reason)
