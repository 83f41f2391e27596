"""When to retry a failed request, and how long to wait first."""

import time

# Statuses worth retrying: rate limited, or a transient server-side failure.
RETRYABLE_STATUSES = frozenset([429, 502, 503, 504])


class RetryPolicy:
    """Exponential backoff: attempt n (from 0) waits base_delay * 2**n, capped at max_delay."""

    def __init__(self, max_attempts=5, base_delay=0.5, max_delay=30.0, max_elapsed=120.0, clock=time.time):
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_elapsed = max_elapsed
        self.clock = clock

    def should_retry(self, attempt, status, started_at):
        """Whether attempt number ``attempt`` (from 0) that got ``status`` may be retried."""
        if status not in RETRYABLE_STATUSES or attempt + 1 >= self.max_attempts:
            return False
        return self.clock() - started_at < self.max_elapsed

    def delay(self, attempt, headers=None):
        """Seconds to wait before retrying after attempt number ``attempt``.

        ``headers`` are the failed response's headers (a mapping).
        TODO(#88): honour ``Retry-After``; the headers are ignored for now.
        """
        return min(self.max_delay, self.base_delay * 2**attempt)
