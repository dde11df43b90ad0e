package llmtest

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// Simple returns a one-message request for model.
func Simple(model string) *llm.Request {
	return &llm.Request{Model: model, Messages: []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "Hello"}}},
	}}
}

// CheckError checks that a collected stream ended in an error of kind,
// with a retry delay within [minDelay, maxDelay], whose message does not
// contain key.
func CheckError(t testing.TB, r Result, kind llm.ErrorKind, minDelay, maxDelay time.Duration, key string) {
	t.Helper()
	if r.Err == nil {
		t.Fatalf("no error; events %+v", r.Events)
	}
	if r.Err.Kind != kind {
		t.Fatalf("kind = %q, want %q (%v)", r.Err.Kind, kind, r.Err)
	}
	if r.Err.RetryAfter < minDelay || r.Err.RetryAfter > maxDelay {
		t.Errorf("retry after = %v, want [%v, %v]", r.Err.RetryAfter, minDelay, maxDelay)
	}
	if strings.Contains(r.Err.Error(), key) {
		t.Errorf("error leaks the key: %v", r.Err)
	}
}

// CheckCancel streams req from p, whose server must send some text and
// then hang, cancels the context at the first text delta, and checks that
// the stream then ends promptly with a cancelled error.
func CheckCancel(t testing.TB, p llm.Provider, req *llm.Request) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	var last llm.Event
	for ev := range p.Stream(ctx, req) {
		last = ev
		if ev.Type == llm.EventTextDelta && at.IsZero() {
			at = time.Now()
			cancel()
		}
	}
	if at.IsZero() {
		t.Fatal("no text before the hang")
	}
	elapsed := time.Since(at)
	t.Logf("stream ended %v after cancel", elapsed)
	if elapsed > 2*time.Second {
		t.Errorf("stream took %v to end after cancel", elapsed)
	}
	if last.Type != llm.EventError || last.Err.Kind != llm.ErrCanceled {
		t.Errorf("last event = %+v, want a cancelled error", last)
	}
}

// BenchDeltas streams newRequest() from p once per iteration, checking
// that each stream yields deltas text deltas and no error; size is the
// byte length of the body the server sends. It reports the cost per delta.
func BenchDeltas(b *testing.B, p llm.Provider, newRequest func() *llm.Request, size, deltas int) {
	b.Helper()
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for ev := range p.Stream(context.Background(), newRequest()) {
			if ev.Type == llm.EventTextDelta {
				n++
			}
			if ev.Type == llm.EventError {
				b.Fatal(ev.Err)
			}
		}
		if n != deltas {
			b.Fatalf("%d deltas", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*deltas), "ns/delta")
}

// Serve starts a recording server answering with h and builds the adapter
// under test for it with newProvider, given the server's URL and a client
// whose idle connections are closed when the test ends.
func Serve[P any](t testing.TB, h http.HandlerFunc, newProvider func(url string, client *http.Client) P) (P, *Server) {
	t.Helper()
	srv := NewServer(t, h)
	return newProvider(srv.URL, HTTPClient(t)), srv
}

// CheckFixture checks that a stream collected from the wire fixture file
// is well formed (an error it ends in may be what the fixture holds) and
// matches the fixture's expected.json entry.
func CheckFixture(t testing.TB, r Result, file string, reason llm.FinishReason) {
	t.Helper()
	if r.Err != nil && r.Err.Kind == "malformed" {
		t.Fatal(r.Err)
	}
	CheckExpected(t, r, LoadExpected(t, file), reason)
}
