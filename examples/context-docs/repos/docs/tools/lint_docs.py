#!/usr/bin/env python3
"""Check the docs: every page starts with a `# ` title and relative links resolve."""

import os
import re
import sys

LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def problems(root):
    for folder, _dirs, files in os.walk(root):
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if not text.startswith("# "):
                yield f"{path}: the first line must be a '# ' title"
            for target in LINK.findall(text):
                if "://" not in target and not os.path.exists(os.path.join(folder, target)):
                    yield f"{path}: broken link to {target}"


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = list(problems(root))
    for problem in found:
        print(problem)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
