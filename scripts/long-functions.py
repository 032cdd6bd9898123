#!/usr/bin/env python3
"""Functions and initialisers in Sources/ longer than a limit (default 80 lines), longest first.

A function's length runs from the line of its `func`/`init`/`deinit`/`subscript` keyword to the line of the brace
that closes its body. Braces inside string literals (plain, multi-line, raw, with interpolations) and comments
(line, block, nested block) are not counted. Exit status 1 when any function exceeds the limit, unless --report.

    scripts/long-functions.py [--limit N] [--report] [PATH ...]   (default PATH: Sources)
"""
import argparse
import os
import re
import sys

KEYWORDS = ("func", "init", "deinit", "subscript")
# A declaration that begins at top level of a type body before any `{` means the previous one had no body
# (a protocol requirement).
DECL_START = re.compile(r"(func|init|deinit|subscript|var|let|case|typealias|associatedtype|static|class|struct|enum|"
                        r"protocol|extension|public|private|fileprivate|internal|package|open|mutating|nonmutating|"
                        r"override|convenience|required|final|@)\b")


def blank(text):
    """The source with every comment and string literal's content replaced by spaces (newlines kept), so that
    braces and keywords in them are not seen; code inside string interpolations is kept."""
    out = list(text)
    n = len(text)

    def wipe(start, end):
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    def skip_comment(i):
        """At `//` or `/*`: the index after the comment, blanking it."""
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            return j
        depth, j = 0, i
        while j < n:
            if text.startswith("/*", j):
                depth, j = depth + 1, j + 2
            elif text.startswith("*/", j):
                depth, j = depth - 1, j + 2
                if depth == 0:
                    break
            else:
                j += 1
        wipe(i, j)
        return j

    def code(i, stop_at_paren):
        """Scans code from i; with stop_at_paren, returns at the `)` closing an interpolation."""
        depth = 0
        while i < n:
            c = text[i]
            if text.startswith("//", i) or text.startswith("/*", i):
                i = skip_comment(i)
            elif c == '"' or (c == "#" and re.match(r'#+"', text[i:i + 64])):
                i = string(i)
            elif c == "(":
                depth, i = depth + 1, i + 1
            elif c == ")":
                if stop_at_paren and depth == 0:
                    return i + 1
                depth, i = depth - 1, i + 1
            else:
                i += 1
        return i

    def string(i):
        """At a string literal's opening (`"`, `\"\"\"`, `#"`…): the index after its closing delimiter."""
        hashes = 0
        while text[i + hashes] == "#":
            hashes += 1
        j = i + hashes
        quote = '"""' if text.startswith('"""', j) else '"'
        j += len(quote)
        closing = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        segment = j
        while j < n:
            if text.startswith(escape, j):
                k = j + len(escape)
                if k < n and text[k] == "(":
                    wipe(segment, j)
                    j = code(k + 1, True)
                    segment = j
                else:
                    j = k + 1
            elif text.startswith(closing, j):
                wipe(segment, j)
                return j + len(closing)
            elif quote == '"' and text[j] == "\n":  # unterminated: stop at the line's end
                wipe(segment, j)
                return j
            else:
                j += 1
        wipe(segment, j)
        return j

    code(0, False)
    return "".join(out)


def functions(text):
    """(name, first line, last line) of each function with a body in the source."""
    clean = blank(text)
    line_of = []
    line = 1
    for c in clean:
        line_of.append(line)
        if c == "\n":
            line += 1
    found = []
    for m in re.finditer(r"(?<![\w.$])(func|init|deinit|subscript)(?![\w])", clean):
        keyword = m.group(1)
        after = clean[m.end():]
        if keyword == "func":
            nm = re.match(r"\s+([^\s(<]+)", after)
            if not nm:
                continue
            name = nm.group(1)
        elif keyword == "init":
            if not re.match(r"\s*[?!]?\s*[(<]", after):
                continue
            name = "init"
        elif keyword == "subscript":
            if not re.match(r"\s*[(<]", after):
                continue
            name = "subscript"
        else:
            if not re.match(r"\s*\{", after):
                continue
            name = "deinit"
        # The body's `{`: the first one outside parentheses and brackets, unless another declaration or the
        # enclosing body's end comes first.
        i, depth, body = m.end(), 0, None
        while i < len(clean):
            c = clean[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                depth -= 1
            elif depth == 0 and c == "{":
                body = i
                break
            elif depth == 0 and c in "};":
                break
            elif depth == 0 and c == "\n":
                rest = clean[i + 1:i + 200].lstrip()
                if DECL_START.match(rest) and not rest.startswith(("where", "throws", "rethrows", "async", "->")):
                    break
            i += 1
        if body is None:
            continue
        level, j = 0, body
        while j < len(clean):
            if clean[j] == "{":
                level += 1
            elif clean[j] == "}":
                level -= 1
                if level == 0:
                    break
            j += 1
        found.append((name, line_of[m.start()], line_of[min(j, len(clean) - 1)]))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=80, help="longest allowed function, in lines (default 80)")
    parser.add_argument("--report", action="store_true", help="list them but exit 0")
    parser.add_argument("paths", nargs="*", default=None)
    args = parser.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    paths = args.paths or [os.path.join(root, "Sources")]
    files = []
    for path in paths:
        if os.path.isfile(path):
            files.append(path)
        for directory, _, names in os.walk(path):
            files += [os.path.join(directory, name) for name in names if name.endswith(".swift")]
    long = []
    for path in sorted(files):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        shown = os.path.relpath(path, root) if not args.paths else path
        for name, first, last in functions(text):
            length = last - first + 1
            if length > args.limit:
                long.append((length, shown, first, name))
    long.sort(key=lambda item: (-item[0], item[1], item[2]))
    for length, path, first, name in long:
        print(f"{path}:{first}: {name} {length} lines")
    print(f"{len(long)} function(s) over {args.limit} lines")
    return 1 if long and not args.report else 0


if __name__ == "__main__":
    sys.exit(main())
