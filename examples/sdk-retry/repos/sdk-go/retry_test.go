package acme

import (
	"testing"
	"time"
)

func TestBackoffDoubles(t *testing.T) {
	p := DefaultPolicy()
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second}
	for n, w := range want {
		if got := p.Delay(n, nil); got != w {
			t.Errorf("Delay(%d) = %v, want %v", n, got, w)
		}
	}
}

func TestBackoffIsCapped(t *testing.T) {
	p := Policy{BaseDelay: time.Second, MaxDelay: 10 * time.Second}
	if got := p.Delay(8, nil); got != 10*time.Second {
		t.Errorf("Delay(8) = %v, want 10s", got)
	}
}

func TestRetriesTransientStatusesOnly(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	p := DefaultPolicy()
	p.Now = func() time.Time { return now }
	if !p.ShouldRetry(0, 503, now) || p.ShouldRetry(0, 400, now) {
		t.Error("want 503 retried and 400 not")
	}
}

func TestStopsAfterMaxAttemptsAndElapsed(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	p := Policy{MaxAttempts: 3, MaxElapsed: time.Minute, Now: func() time.Time { return now }}
	if p.ShouldRetry(2, 503, now) || p.ShouldRetry(0, 503, now.Add(-100*time.Second)) {
		t.Error("want no retry after the last attempt or past MaxElapsed")
	}
}
