// Package acme is the Go client for the Acme API.
package acme

import (
	"net/http"
	"time"
)

// retryableStatuses are worth retrying: rate limited, or a transient server-side failure.
var retryableStatuses = map[int]bool{429: true, 502: true, 503: true, 504: true}

// Policy is exponential backoff: attempt n (from 0) waits BaseDelay * 2^n, capped at MaxDelay.
type Policy struct {
	MaxAttempts int
	BaseDelay   time.Duration
	MaxDelay    time.Duration
	MaxElapsed  time.Duration
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
}

// DefaultPolicy returns the policy the client uses unless told otherwise.
func DefaultPolicy() Policy {
	return Policy{MaxAttempts: 5, BaseDelay: 500 * time.Millisecond, MaxDelay: 30 * time.Second, MaxElapsed: 2 * time.Minute}
}

func (p Policy) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// ShouldRetry reports whether attempt number attempt (from 0) that got status may be retried.
func (p Policy) ShouldRetry(attempt int, status int, startedAt time.Time) bool {
	if !retryableStatuses[status] || attempt+1 >= p.MaxAttempts {
		return false
	}
	return p.now().Sub(startedAt) < p.MaxElapsed
}

// Delay is how long to wait before retrying after attempt number attempt.
// header holds the failed response's headers.
// TODO(#88): honour Retry-After; the header is ignored for now.
func (p Policy) Delay(attempt int, header http.Header) time.Duration {
	d := p.BaseDelay << uint(attempt)
	if d > p.MaxDelay || d <= 0 {
		return p.MaxDelay
	}
	return d
}
