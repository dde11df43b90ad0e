package llm

import (
	"fmt"
	"time"
)

// ErrorKind classifies a provider failure by what the loop should do about
// it.
type ErrorKind string

// The classes of provider errors.
const (
	// ErrOther is a failure that retrying will not fix.
	ErrOther ErrorKind = "other"
	// ErrRetryable is a transient failure (rate limit, overload, server
	// error, broken connection); RetryAfter is the delay the provider asked
	// for, or zero.
	ErrRetryable ErrorKind = "retryable"
	// ErrContextOverflow means the request does not fit the model's context
	// window; the loop compacts instead of retrying.
	ErrContextOverflow ErrorKind = "context-overflow"
	// ErrAuth means the credentials were missing or refused.
	ErrAuth ErrorKind = "auth"
	// ErrContentFilter means the provider refused the content.
	ErrContentFilter ErrorKind = "content-filter"
	// ErrCanceled means the request's context was cancelled.
	ErrCanceled ErrorKind = "canceled"
)

// Error is a classified provider failure. Its message never contains
// credentials.
type Error struct {
	Kind       ErrorKind
	Provider   string
	Message    string
	StatusCode int               // HTTP status, 0 when none
	RetryAfter time.Duration     // the provider's requested delay, 0 when none
	Headers    map[string]string // response headers worth keeping
	Body       string            // the response body, possibly cut
	Err        error             // the underlying error, if any
}

func (e *Error) Error() string {
	s := e.Message
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.StatusCode != 0 {
		s = fmt.Sprintf("%s (status %d)", s, e.StatusCode)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the loop may retry the request.
func (e *Error) Retryable() bool { return e.Kind == ErrRetryable }
