package llmtest

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/codeloop/codeloop/internal/llm"
)

// NewFuzzProvider builds the adapter under test for a server at baseURL,
// sending its requests through client with header added to each.
type NewFuzzProvider func(baseURL string, client *http.Client, header map[string]string) llm.Provider

// FuzzStream seeds f with the wire fixtures matching glob (whole and cut in
// half) and a data line that is not JSON, then sends each fuzz input as the
// SSE body of a 200 response and checks the adapter's event stream for
// request newRequest(): no panic, no hang, exactly one final event (a
// finish, or an error carrying an *llm.Error) and no goroutine left
// behind. The Fuzz function calling it stays in the adapter's package, so
// that its testdata/fuzz corpus is found.
func FuzzStream(f *testing.F, glob string, newProvider NewFuzzProvider, newRequest func() *llm.Request) {
	f.Helper()
	seeds, _ := filepath.Glob(filepath.Join(WireDir(), glob))
	for _, path := range seeds {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte("data: not json\n\n"))

	h := &fuzzHandler{}
	srv := httptest.NewServer(h)
	f.Cleanup(srv.Close)
	tr := &http.Transport{DisableKeepAlives: true}
	f.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	// The fuzzing engine starts a signal watcher once fuzzing begins.
	ignore := []goleak.Option{goleak.IgnoreCurrent(), goleak.IgnoreTopFunction("os/signal.NotifyContext.func1")}

	f.Fuzz(func(t *testing.T, body []byte) {
		key := h.put(body)
		defer h.drop(key)
		p := newProvider(srv.URL, client, map[string]string{fuzzHeader: key})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := checkStream(p.Stream(ctx, newRequest())); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() != nil {
			t.Fatal("the stream did not end within 10s")
		}
		if err := goleak.Find(ignore...); err != nil {
			t.Fatal(err)
		}
	})
}

const fuzzHeader = "X-Fuzz-Body"

// fuzzHandler answers each request with the body registered under its
// X-Fuzz-Body header.
type fuzzHandler struct {
	n      atomic.Int64
	bodies sync.Map
}

func (h *fuzzHandler) put(b []byte) string {
	key := strconv.FormatInt(h.n.Add(1), 10)
	h.bodies.Store(key, b)
	return key
}

func (h *fuzzHandler) drop(key string) { h.bodies.Delete(key) }

func (h *fuzzHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Read the whole request first, as a real server does, so that the
	// client is done writing when the response ends.
	_, _ = io.Copy(io.Discard, r.Body)
	b, ok := h.bodies.Load(r.Header.Get(fuzzHeader))
	if !ok {
		http.Error(w, "unknown fuzz body", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.([]byte))
}

// checkStream reads a whole event stream and reports the first way it
// breaks what the session loop relies on: exactly one final event (a
// finish, or an error carrying an *llm.Error), nothing after it, and only
// known event types. Block order is not checked (the loop opens a block on
// its first delta and ignores stray ends), nor are tool arguments (invalid
// JSON from the model is the loop's to handle).
func checkStream(seq iter.Seq[llm.Event]) error {
	ended := false
	for ev := range seq {
		if ended {
			return fmt.Errorf("event %s after the end of the stream", ev.Type)
		}
		switch ev.Type {
		case llm.EventTextStart, llm.EventTextDelta, llm.EventTextEnd,
			llm.EventReasoningStart, llm.EventReasoningDelta, llm.EventReasoningEnd,
			llm.EventToolInputStart, llm.EventToolInputDelta, llm.EventToolCall:
		case llm.EventFinish:
			ended = true
		case llm.EventError:
			if ev.Err == nil {
				return fmt.Errorf("error event without an error")
			}
			ended = true
		default:
			return fmt.Errorf("unknown event type %q", ev.Type)
		}
	}
	if !ended {
		return fmt.Errorf("stream ended without a finish or an error")
	}
	return nil
}
