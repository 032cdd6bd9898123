"""A second implementation of Spec/FORMAT.md and Spec/MERGE.md, written from their text.

It writes the expected answers of Spec/vectors; the Swift implementation is tested against them.
Modules follow the documents: canonical_json and encoding (FORMAT §1), primitives (§2), header (§3),
paths (§4), entry (§5), envelope (§6), merge (MERGE §2-§9), merge_header (MERGE §10).
Versioned parts (header, envelope, key slot types) are looked up in tables keyed by version or type,
so a later version is one more table entry.
"""
