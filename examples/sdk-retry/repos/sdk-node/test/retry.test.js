'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { RetryPolicy } = require('../lib');

test('backoff doubles', () => {
  const policy = new RetryPolicy({ baseDelay: 0.5 });
  assert.deepStrictEqual([0, 1, 2, 3].map((n) => policy.delay(n)), [0.5, 1, 2, 4]);
});

test('backoff is capped', () => {
  assert.strictEqual(new RetryPolicy({ baseDelay: 1, maxDelay: 10 }).delay(8), 10);
});

test('retries transient statuses only', () => {
  const policy = new RetryPolicy({ clock: () => 100000 });
  assert.ok(policy.shouldRetry(0, 503, 100000));
  assert.ok(!policy.shouldRetry(0, 400, 100000));
});

test('stops after max attempts and elapsed time', () => {
  const policy = new RetryPolicy({ maxAttempts: 3, maxElapsed: 60, clock: () => 1000000 });
  assert.ok(!policy.shouldRetry(2, 503, 1000000));
  assert.ok(!policy.shouldRetry(0, 503, 900000));
});
