#!/usr/bin/env python3
"""scripts/check_docs.py: checks README.md and docs/*.md the way issue 26 asks.

Prints one line per problem and exits 1 when there is one:
- a Markdown link to a file or folder that does not exist, or one that leaves
  the repository (http...);
- a `path` in backquotes that names a file of the source tree (it starts with
  a module folder) and does not exist: after files move, the docs must follow;
- a table cell over 200 characters (write prose instead);
- a README longer than 150 lines, or whose first link leaves the repository.
Code blocks are skipped. Paths under build/ and out/ are not checked (they
exist only after a build or a run).

    scripts/check_docs.py            # from anywhere in the repository
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TOPS = ("base/", "cdp/", "model/", "image/", "perception/", "snapper/", "motion/",
        "cascade/", "agent/", "record/", "serve/", "mcp/", "tools/", "assets/", "tests/", "bench/",
        "cmake/", "scripts/", "docs/")


def check(path, problems):
    text = open(path, encoding="utf-8").read()
    here = os.path.dirname(path)
    rel = os.path.relpath(path, ROOT)
    in_code = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        if line.startswith("|"):
            for cell in line.strip().strip("|").split("|"):
                if len(cell.strip()) > 200:
                    problems.append(f"{rel}:{n}: a table cell of {len(cell.strip())} characters")
        # Links; a `...` span is code, not a link.
        for m in re.finditer(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            target = m.group(1)
            if re.match(r"[a-z]+:", target):
                problems.append(f"{rel}:{n}: link leaves the repository: {target}")
                continue
            if not os.path.exists(os.path.normpath(os.path.join(here, target.split("#")[0]))):
                problems.append(f"{rel}:{n}: broken link: {target}")
        for m in re.finditer(r"`([^`]+)`", line):
            words = m.group(1).split()
            word = words[0].rstrip(".,;:") if words else ""
            if word.startswith(TOPS) and not re.search(r"[*{<$|]|\.\.\.|…", word):
                full = os.path.join(ROOT, word)
                if not os.path.exists(full) and not glob.glob(full + "*"):
                    problems.append(f"{rel}:{n}: no such path in the tree: {word}")
    if rel == "README.md":
        lines = text.count("\n")
        if lines > 150:
            problems.append(f"README.md: {lines} lines (at most about 150)")
        first = re.search(r"\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", text))
        if first and re.match(r"[a-z]+:", first.group(1)):
            problems.append(f"README.md: the first link leaves the repository: {first.group(1)}")


def main():
    problems = []
    files = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    for f in files:
        check(f, problems)
    for p in problems:
        print(p)
    print(f"check_docs: {len(files)} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
