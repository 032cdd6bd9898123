#!/usr/bin/env python3
"""Writes Spec/vectors (format vectors, merge/ for the version 1 merge cases, join/ for the join cases of MERGE.md
version 2) from fixed inputs with tresorref.

Usage: python3 Spec/reference/generate.py OUTPUT-DIRECTORY     (make vectors writes Spec/vectors)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vectorgen import accept_cases, format_cases, join_cases, merge_cases, v5_cases  # noqa: E402
from vectorgen.writer import VectorSet  # noqa: E402


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: generate.py OUTPUT-DIRECTORY\n")
        return 2
    out = argv[1]
    formats = format_cases.vectors()
    v5_cases.vectors(formats)
    accept_cases.all_vectors(formats)
    formats.write(out)
    merges = VectorSet()
    for name, vector in merge_cases.VECTORS.items():
        merges.add(name, vector)
    merges.write(os.path.join(out, "merge"))
    joins = VectorSet()
    for name, vector in join_cases.CASES.items():
        joins.add(name, vector)
    joins.write(os.path.join(out, "join"))
    print("wrote %d format, %d merge and %d join vectors to %s"
          % (len(formats.vectors), len(merges.vectors), len(joins.vectors), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
