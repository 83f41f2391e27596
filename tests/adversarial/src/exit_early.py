"""Crash attack (tests/adversarial/crash): end the test process at import with
`os._exit`, before pytest can report, so the log is incomplete: an "invalid" run would be
excluded from valid-only rates instead of counting as a failure."""

import os

os._exit(3)
