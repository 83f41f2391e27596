from acme_sdk.retry import RetryPolicy


def fixed_clock(now):
    return lambda: now


def test_backoff_doubles():
    policy = RetryPolicy(base_delay=0.5)
    assert [policy.delay(n) for n in range(4)] == [0.5, 1.0, 2.0, 4.0]


def test_backoff_is_capped():
    assert RetryPolicy(base_delay=1.0, max_delay=10.0).delay(8) == 10.0


def test_retries_transient_statuses_only():
    policy = RetryPolicy(clock=fixed_clock(100.0))
    assert policy.should_retry(0, 503, started_at=100.0)
    assert not policy.should_retry(0, 400, started_at=100.0)


def test_stops_after_max_attempts_and_elapsed():
    policy = RetryPolicy(max_attempts=3, max_elapsed=60.0, clock=fixed_clock(1000.0))
    assert not policy.should_retry(2, 503, started_at=1000.0)
    assert not policy.should_retry(0, 503, started_at=900.0)
