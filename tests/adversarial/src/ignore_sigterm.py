"""Timeout attack (tests/adversarial/timeout): ignore SIGTERM and outlive the time limit,
so that `timeout -k` ends the run with 137 instead of 124."""

import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
time.sleep(3600)
