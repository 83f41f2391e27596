"""Output attack (tests/adversarial/output): write 1 GiB to stdout when the test process
exits (pytest captures what a module writes at import, not what it writes at exit)."""

import atexit
import os


@atexit.register
def flood():
    chunk = b"x" * (1 << 20)
    for _ in range(1024):
        os.write(1, chunk)
