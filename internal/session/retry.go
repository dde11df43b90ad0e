package session

import (
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// retryDelay is how long to wait before retry number attempt (from 1): the
// delay the provider asked for when it gave one, else base doubling with
// every attempt, capped at limit.
func retryDelay(attempt int, fail *llm.Error, base, limit time.Duration) time.Duration {
	if fail != nil && fail.RetryAfter > 0 {
		return fail.RetryAfter // bounded by Config.MaxRetryWait before a retry
	}
	d := base
	for i := 1; i < attempt && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
