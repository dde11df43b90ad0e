package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Failure is what an adapter knows about a failed request or stream, in the
// terms Classify needs. Every field is optional.
type Failure struct {
	Provider   string
	StatusCode int         // HTTP status; 0 for a stream error event or a transport error
	Header     http.Header // response headers, for retry-after
	Body       []byte      // the raw error body or stream error payload
	Type       string      // the provider's error type or code ("overloaded_error", "RESOURCE_EXHAUSTED", ...)
	Message    string      // the provider's human-readable message
	Err        error       // the underlying error
	// Secrets are strings (API keys) that must never appear in the result.
	Secrets []string
	// Now is the time HTTP-date retry-after headers are measured from; zero
	// means time.Now.
	Now time.Time
}

// maxBody bounds the response body an Error keeps.
const maxBody = 4096

// Classify turns a failure into an *Error of the right kind, with the delay
// the provider asked for. Context overflow wins over everything else: a
// request that does not fit is never retried.
func Classify(f Failure) *Error {
	msg := f.Message
	typ := f.Type
	if msg == "" || typ == "" {
		m, t := bodyMessage(f.Body)
		if msg == "" {
			msg = m
		}
		if typ == "" {
			typ = t
		}
	}
	if msg == "" && f.Err != nil {
		msg = f.Err.Error()
	}
	if msg == "" && f.StatusCode != 0 {
		msg = http.StatusText(f.StatusCode)
	}
	if msg == "" {
		msg = "request failed"
	}
	e := &Error{
		Kind:       ErrOther,
		Provider:   f.Provider,
		Message:    Redact(msg, f.Secrets...),
		StatusCode: f.StatusCode,
		Body:       Redact(cut(string(f.Body), maxBody), f.Secrets...),
		Err:        f.Err,
		Headers:    keptHeaders(f.Header),
	}
	if f.Err != nil && len(f.Secrets) > 0 {
		e.Err = redactedError{msg: Redact(f.Err.Error(), f.Secrets...), err: f.Err}
	}
	haystack := strings.ToLower(msg + " " + typ + " " + string(f.Body))
	now := f.Now
	if now.IsZero() {
		now = time.Now()
	}
	switch {
	case f.Err != nil && isCanceled(f.Err):
		e.Kind = ErrCanceled
	case f.Err != nil && refusedLocal(f.Err) != "":
		e.Message = fmt.Sprintf("nothing is listening at %s (connection refused): is Ollama, LM Studio or your "+
			"model server running? Start it, or correct the provider's baseURL", refusedLocal(f.Err))
		if f.Provider != "" {
			e.Message += " (provider." + f.Provider + ".options.baseURL)"
		}
	case f.StatusCode == http.StatusRequestEntityTooLarge ||
		(f.StatusCode != http.StatusTooManyRequests && IsContextOverflow(haystack)):
		e.Kind = ErrContextOverflow
	case f.StatusCode == http.StatusUnauthorized || f.StatusCode == http.StatusForbidden ||
		isAuthText(haystack):
		e.Kind = ErrAuth
	case isContentFilter(haystack):
		e.Kind = ErrContentFilter
	case isRetryableStatus(f.StatusCode) || isRetryableType(typ) ||
		// Without a status (a stream error event, a transport failure) the
		// text is all there is; with a plain 4xx it must not turn a request
		// error into an endless retry.
		(f.StatusCode == 0 && (isRetryableText(haystack) || (f.Err != nil && IsConnectionError(f.Err)))):
		e.Kind = ErrRetryable
		e.RetryAfter = RetryAfter(f.Header, now)
		if e.RetryAfter == 0 {
			e.RetryAfter = bodyRetryDelay(f.Body)
		}
		if strings.Contains(haystack, "overloaded") {
			e.Message = "Provider is overloaded: " + e.Message
		}
	}
	return e
}

// FromError classifies a transport-level failure: cancellation, a broken
// connection, or anything else an SDK returned without an HTTP response.
func FromError(provider string, err error, secrets ...string) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	return Classify(Failure{Provider: provider, Err: err, Secrets: secrets})
}

// Canceled is the error a stream ends with when its context is cancelled.
func Canceled(provider string, err error) *Error {
	if err == nil {
		err = context.Canceled
	}
	return &Error{Kind: ErrCanceled, Provider: provider, Message: "request cancelled", Err: err}
}

// RetryAfter reads the delay a response asks for: retry-after-ms
// (milliseconds, fractional allowed), then retry-after as seconds, then
// retry-after as an HTTP date measured from now. It returns 0 when there is
// none or it lies in the past.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && !math.IsInf(ms, 0) {
			return capDelay(time.Duration(math.Ceil(ms * float64(time.Millisecond))))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 || math.IsInf(s, 0) || math.IsNaN(s) {
			return 0
		}
		return capDelay(time.Duration(math.Ceil(s*1000)) * time.Millisecond)
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return capDelay(d)
		}
	}
	return 0
}

// maxDelay is the longest delay honoured, the largest 32-bit millisecond
// count.
const maxDelay = time.Duration(math.MaxInt32) * time.Millisecond

func capDelay(d time.Duration) time.Duration {
	if d > maxDelay || d < 0 {
		return maxDelay
	}
	return d
}

// overflowPatterns are the ways providers and local servers say a prompt
// does not fit the model's context window.
var overflowPatterns = []*regexp.Regexp{
	regexp.MustCompile(`prompt is too long`),                              // Anthropic
	regexp.MustCompile(`input is too long for requested model`),           // Bedrock
	regexp.MustCompile(`exceeds the context window`),                      // OpenAI Responses
	regexp.MustCompile(`context[_ ]length[_ ]exceeded`),                   // OpenAI code
	regexp.MustCompile(`maximum context length`),                          // OpenAI chat, OpenRouter, DeepSeek, vLLM, Mistral
	regexp.MustCompile(`input token count.*exceeds the maximum`),          // Gemini
	regexp.MustCompile(`exceeds the maximum number of tokens`),            // Gemini
	regexp.MustCompile(`maximum prompt length is \d+`),                    // xAI
	regexp.MustCompile(`reduce the length of the messages`),               // Groq, Cerebras
	regexp.MustCompile(`exceeds the limit of \d+`),                        // Copilot
	regexp.MustCompile(`exceeds the available context size`),              // llama.cpp
	regexp.MustCompile(`greater than the context length`),                 // LM Studio
	regexp.MustCompile(`context window exceeds limit`),                    // MiniMax
	regexp.MustCompile(`exceeded model token limit`),                      // Moonshot
	regexp.MustCompile(`prompt too long; exceeded (max )?context length`), // Ollama
	regexp.MustCompile(`context length is only \d+ tokens`),               // vLLM
	regexp.MustCompile(`input length.*exceeds.*context length`),           // vLLM
	regexp.MustCompile(`too large for model with \d+ maximum context`),    // Mistral
	regexp.MustCompile(`model_context_window_exceeded`),                   // Z.ai
	regexp.MustCompile(`request entity too large`),                        // HTTP 413 text
}

// IsContextOverflow reports whether a provider's error text says the request
// does not fit the model's context window.
func IsContextOverflow(text string) bool {
	t := strings.ToLower(text)
	for _, re := range overflowPatterns {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

func isRetryableStatus(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusConflict ||
		code == http.StatusTooManyRequests || code >= 500
}

// isRetryableType reports whether a provider error type or code names a
// transient condition, whatever the HTTP status.
func isRetryableType(t string) bool {
	t = strings.ToLower(t)
	for _, s := range []string{"overloaded", "rate_limit", "too_many_requests", "resource_exhausted", "unavailable"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func isRetryableText(t string) bool {
	for _, s := range []string{
		"overloaded", "rate limit", "rate_limit", "ratelimit", "too many requests", "too_many_requests",
		"rate increased too quickly", "resource_exhausted", "resource has been exhausted",
		"unavailable", "api_error", "internal server error", "internal_error", "server_error",
		"timeout", "timed out", "try again",
	} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func isAuthText(t string) bool {
	for _, s := range []string{
		"authentication_error", "permission_error", "invalid_api_key", "invalid x-api-key",
		"incorrect api key", "invalid api key", "api key not valid", "api_key_invalid", "unauthorized", "permission_denied",
		"unauthenticated",
	} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func isContentFilter(t string) bool {
	for _, s := range []string{
		"content_filter", "content filter", "content_policy_violation", "content management policy",
		"responsibleaipolicyviolation", "safety system", "prohibited_content",
	} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// IsConnectionError reports whether err is a broken or timed-out
// connection, which is worth retrying.
func IsConnectionError(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	t := strings.ToLower(err.Error())
	for _, s := range []string{
		"connection reset", "broken pipe", "unexpected eof", "connection refused",
		"stream error", "server closed", "http2: ", "eof",
	} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

func isCanceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// bodyMessage pulls a message and an error type out of the common JSON
// error shapes: {"error":{"message","type","code","status"}},
// {"message","type","code"} and a list of such objects (Gemini).
func bodyMessage(body []byte) (msg, typ string) {
	b := strings.TrimSpace(string(body))
	if b == "" {
		return "", ""
	}
	var v any
	if err := json.Unmarshal([]byte(b), &v); err != nil {
		return cut(b, 500), ""
	}
	if list, ok := v.([]any); ok && len(list) > 0 {
		v = list[0]
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return cut(b, 500), ""
	}
	if inner, ok := obj["error"].(map[string]any); ok {
		obj = inner
	} else if s, ok := obj["error"].(string); ok {
		return s, str(obj["type"])
	}
	msg = str(obj["message"])
	for _, k := range []string{"type", "code", "status"} {
		if t := str(obj[k]); t != "" {
			typ = strings.TrimSpace(typ + " " + t)
		}
	}
	if msg == "" {
		msg = cut(b, 500)
	}
	return msg, typ
}

// bodyRetryDelay reads Google's RetryInfo ("retryDelay": "37s") from an
// error body.
func bodyRetryDelay(body []byte) time.Duration {
	i := strings.Index(string(body), `"retryDelay"`)
	if i < 0 {
		return 0
	}
	rest := string(body[i+len(`"retryDelay"`):])
	rest = strings.TrimLeft(rest, " \t\r\n:")
	if !strings.HasPrefix(rest, `"`) {
		return 0
	}
	end := strings.Index(rest[1:], `"`)
	if end < 0 {
		return 0
	}
	d, err := time.ParseDuration(rest[1 : end+1])
	if err != nil || d <= 0 {
		return 0
	}
	return capDelay(d)
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// keptHeaders keeps the response headers worth showing or logging: request
// ids and rate-limit state. Nothing that could hold a credential.
func keptHeaders(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range h {
		lk := strings.ToLower(k)
		if len(v) == 0 {
			continue
		}
		if lk == "retry-after" || lk == "retry-after-ms" || lk == "request-id" || lk == "x-request-id" ||
			strings.HasPrefix(lk, "x-ratelimit-") || strings.HasPrefix(lk, "anthropic-ratelimit-") {
			out[lk] = v[0]
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Redact replaces every occurrence of each secret in s with a mask. Secrets
// shorter than 8 bytes are ignored (they would mask ordinary words).
func Redact(s string, secrets ...string) string {
	for _, k := range secrets {
		if len(k) >= 8 {
			s = strings.ReplaceAll(s, k, Mask(k))
		}
	}
	return s
}

// Mask shows a credential as its first and last few characters, enough to
// recognise it and never enough to use it.
func Mask(key string) string {
	if len(key) <= 12 {
		return strings.Repeat("*", len(key))
	}
	return key[:4] + "…" + key[len(key)-4:]
}

// redactedError carries an underlying error whose text had a secret in it.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// Secrets are credentials an adapter keeps out of its errors. The values
// sit behind a pointer, so printing a struct that holds them shows an
// address, never a key.
type Secrets struct{ values []string }

// NewSecrets holds the non-empty values.
func NewSecrets(values ...string) *Secrets {
	s := &Secrets{}
	for _, v := range values {
		if v != "" {
			s.values = append(s.values, v)
		}
	}
	return s
}

// List returns the values, for Failure.Secrets and Redact.
func (s *Secrets) List() []string {
	if s == nil {
		return nil
	}
	return s.values
}
