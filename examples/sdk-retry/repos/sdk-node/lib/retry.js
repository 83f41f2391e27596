'use strict';

/** Statuses worth retrying: rate limited, or a transient server-side failure. */
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Exponential backoff: attempt n (from 0) waits baseDelay * 2**n seconds, capped at maxDelay. */
class RetryPolicy {
  constructor({ maxAttempts = 5, baseDelay = 0.5, maxDelay = 30, maxElapsed = 120, clock = Date.now } = {}) {
    this.maxAttempts = maxAttempts;
    this.baseDelay = baseDelay;
    this.maxDelay = maxDelay;
    this.maxElapsed = maxElapsed;
    // Milliseconds since the epoch, like Date.now.
    this.clock = clock;
  }

  /** Whether attempt number `attempt` (from 0) that got `status` may be retried. */
  shouldRetry(attempt, status, startedAt) {
    if (!RETRYABLE_STATUSES.has(status) || attempt + 1 >= this.maxAttempts) {
      return false;
    }
    return (this.clock() - startedAt) / 1000 < this.maxElapsed;
  }

  /**
   * Seconds to wait before retrying after attempt number `attempt`.
   * `headers` are the failed response's headers (a plain object).
   * TODO(#88): honour Retry-After; the headers are ignored for now.
   */
  delay(attempt, headers = {}) {
    return Math.min(this.maxDelay, this.baseDelay * 2 ** attempt);
  }
}

module.exports = { RetryPolicy, RETRYABLE_STATUSES };
