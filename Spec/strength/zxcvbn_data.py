#!/usr/bin/env python3
"""Writes (or with --check, compares) the strength estimator's data files from the zxcvbn package.

The ranked frequency lists and keyboard adjacency graphs of the PyPI `zxcvbn` package (MIT licence,
Sources/TresorData/Resources/README.md) become one word a line, rank = line number, and one JSON file.
Run with the package importable, e.g. `PYTHONPATH=.build/python python3 Spec/strength/zxcvbn_data.py`.
"""
import json
import os
import sys

import zxcvbn
from zxcvbn.adjacency_graphs import ADJACENCY_GRAPHS
from zxcvbn.frequency_lists import FREQUENCY_LISTS

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "..", "Sources", "TresorData", "Resources", "zxcvbn"))
LISTS = ["passwords", "english_wikipedia", "female_names", "surnames", "us_tv_and_film", "male_names"]
GRAPHS = ["qwerty", "dvorak", "keypad", "mac_keypad"]


def files():
    out = {}
    for name in LISTS:
        words = FREQUENCY_LISTS[name]
        if isinstance(words, str):
            words = words.split(",")
        assert all(w and w.isascii() and "\n" not in w for w in words), name
        out[name + ".txt"] = "".join(w + "\n" for w in words)
    graphs = {name: ADJACENCY_GRAPHS[name] for name in GRAPHS}
    out["adjacency_graphs.json"] = json.dumps(graphs, sort_keys=True, separators=(",", ":")) + "\n"
    return out


def main():
    check = "--check" in sys.argv[1:]
    version = getattr(zxcvbn, "__version__", None)
    stale = []
    for name, text in files().items():
        path = os.path.join(OUT, name)
        if check:
            try:
                with open(path, encoding="utf-8") as f:
                    if f.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
        else:
            os.makedirs(OUT, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
    if stale:
        print("zxcvbn data differs from the installed package%s: %s" % (" " + version if version else "", ", ".join(stale)))
        sys.exit(1)
    print("zxcvbn data %s" % ("matches the package" if check else "written to " + OUT))


if __name__ == "__main__":
    main()
