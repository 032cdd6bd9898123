#!/usr/bin/env python3
"""Writes candidate vectors beyond Spec/vectors (hostile inputs, random merges), answered by tresorref, into a
folder in the layout of Spec/vectors: `make probe-vectors` runs the Swift vector tests on them. They are not
committed; a disagreement found this way becomes a committed vector and a fix.

Usage: python3 Spec/reference/probe.py OUTPUT-DIRECTORY
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from vectorgen.probe_format import format_probes  # noqa: E402
from vectorgen.probe_merge import merge_probes  # noqa: E402


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: probe.py OUTPUT-DIRECTORY\n")
        return 2
    formats, merges = format_probes(), merge_probes()
    formats.write(argv[1])
    merges.write(os.path.join(argv[1], "merge"))
    print("wrote %d format and %d merge probes to %s" % (len(formats.vectors), len(merges.vectors), argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
