#!/usr/bin/env python3
"""Runs the real zxcvbn package on Spec/strength/passwords.txt and writes Spec/strength/reference.jsonl.

With --check it writes nothing and fails when the committed reference differs from what the installed
package says, so the numbers the Swift tests compare against always come from the package itself.
Run with the package importable: `PYTHONPATH=.build/python python3 Spec/strength/zxcvbn_reference.py`.
The package's own reference year (zxcvbn.scoring.REFERENCE_YEAR) is recorded in every line.
"""
import json
import os
import sys

from zxcvbn import zxcvbn
from zxcvbn import scoring

HERE = os.path.dirname(os.path.abspath(__file__))


def lines():
    with open(os.path.join(HERE, "passwords.txt"), encoding="utf-8") as f:
        passwords = [line.rstrip("\n") for line in f]
    for p in passwords:
        r = zxcvbn(p)
        yield json.dumps({
            "password": p,
            "guesses_log10": round(float(r["guesses_log10"]), 6),
            "score": r["score"],
            "patterns": [m["pattern"] for m in r["sequence"]],
            "reference_year": scoring.REFERENCE_YEAR,
        }, ensure_ascii=False, sort_keys=True) + "\n"


def main():
    text = "".join(lines())
    path = os.path.join(HERE, "reference.jsonl")
    if "--check" in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            committed = f.read()
        if committed != text:
            old, new = committed.splitlines(), text.splitlines()
            diff = [(a, b) for a, b in zip(old, new) if a != b][:3]
            print("Spec/strength/reference.jsonl differs from the zxcvbn package's results (%d vs %d lines): %s"
                  % (len(old), len(new), diff))
            sys.exit(1)
        print("zxcvbn reference matches the package (%d passwords)" % text.count("\n"))
        return
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print("wrote %s (%d passwords)" % (path, text.count("\n")))


if __name__ == "__main__":
    main()
