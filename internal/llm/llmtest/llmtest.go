// Package llmtest holds what the provider adapters' tests share: the wire
// fixtures and their expected results, an HTTP server that records requests
// and replays responses, a collector that checks an event stream is well
// formed and sums it up, the checks and benchmark loop every adapter runs,
// and the harness of the adapters' stream fuzz targets.
//
// Only tests import it.
package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/codeloop/codeloop/internal/llm"
)

// WireDir is the directory of the SSE wire fixtures.
func WireDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "wire")
}

// Wire returns the bytes of one fixture.
func Wire(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(WireDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Expected is one entry of expected.json.
type Expected struct {
	API        string         `json:"api"`
	Complete   bool           `json:"complete"`
	Text       string         `json:"text"`
	Reasoning  *ExpReasoning  `json:"reasoning"`
	ToolCalls  []ExpCall      `json:"tool_calls"`
	StopReason *string        `json:"stop_reason"`
	Usage      map[string]any `json:"usage"`
	Error      *ExpError      `json:"error"`
}

// ExpReasoning is the reasoning a fixture must produce.
type ExpReasoning struct {
	Text      string `json:"text"`
	Signature string `json:"signature"`
}

// ExpCall is a tool call a fixture must produce.
type ExpCall struct {
	ID               *string         `json:"id"`
	ItemID           string          `json:"item_id"`
	Name             string          `json:"name"`
	Arguments        json.RawMessage `json:"arguments"`
	RawArguments     string          `json:"raw_arguments"`
	ThoughtSignature *string         `json:"thought_signature"`
}

// ExpError is the error a fixture must produce.
type ExpError struct {
	Type           string `json:"type"`
	Message        string `json:"message"`
	Retryable      bool   `json:"retryable"`
	HTTPEquivalent int    `json:"http_equivalent"`
}

// UsageInt returns a usage number of the entry, or -1 when it is absent.
func (e Expected) UsageInt(key string) int64 {
	if e.Usage == nil {
		return -1
	}
	f, ok := e.Usage[key].(float64)
	if !ok {
		return -1
	}
	return int64(f)
}

// LoadExpected reads the expected.json entry of one fixture.
func LoadExpected(t testing.TB, name string) Expected {
	t.Helper()
	var all struct {
		Files map[string]Expected `json:"files"`
	}
	if err := json.Unmarshal(Wire(t, "expected.json"), &all); err != nil {
		t.Fatal(err)
	}
	e, ok := all.Files[name]
	if !ok {
		t.Fatalf("expected.json has no entry %q", name)
	}
	return e
}

// Call is a completed tool call seen in a stream.
type Call struct {
	ID, Name, Input, Signature, ItemID string
}

// Result sums up a stream.
type Result struct {
	Events    []llm.Event
	Text      string
	Reasoning string
	Signature string // of the last reasoning block
	Redacted  string
	Encrypted string
	ToolCalls []Call
	Finish    *llm.Event
	Err       *llm.Error
}

// Collect drains seq and checks it is well formed: deltas only inside their
// block, every started block ended, tool calls after their input start,
// and nothing after a finish or error event. A malformed stream is reported
// as Result.Err of kind "malformed".
func Collect(seq iter.Seq[llm.Event]) Result {
	var r Result
	open := map[string]llm.EventType{} // block id → start type
	inputs := map[string]bool{}
	var bad error
	fail := func(format string, args ...any) {
		if bad == nil {
			bad = fmt.Errorf(format, args...)
		}
	}
	for ev := range seq {
		r.Events = append(r.Events, ev)
		if r.Finish != nil || r.Err != nil {
			fail("event %s after the end of the stream", ev.Type)
		}
		switch ev.Type {
		case llm.EventTextStart, llm.EventReasoningStart:
			if _, dup := open[ev.ID]; dup {
				fail("block %q started twice", ev.ID)
			}
			open[ev.ID] = ev.Type
		case llm.EventTextDelta:
			if open[ev.ID] != llm.EventTextStart {
				fail("text delta for block %q that is not open", ev.ID)
			}
			r.Text += ev.Text
		case llm.EventReasoningDelta:
			if open[ev.ID] != llm.EventReasoningStart {
				fail("reasoning delta for block %q that is not open", ev.ID)
			}
			r.Reasoning += ev.Text
		case llm.EventTextEnd:
			if open[ev.ID] != llm.EventTextStart {
				fail("text end for block %q that is not open", ev.ID)
			}
			delete(open, ev.ID)
		case llm.EventReasoningEnd:
			if open[ev.ID] != llm.EventReasoningStart {
				fail("reasoning end for block %q that is not open", ev.ID)
			}
			delete(open, ev.ID)
			if ev.Signature != "" {
				r.Signature = ev.Signature
			}
			r.Redacted += ev.Redacted
			r.Encrypted += ev.Encrypted
		case llm.EventToolInputStart:
			inputs[ev.ID] = true
		case llm.EventToolInputDelta:
			if !inputs[ev.ID] {
				fail("tool input delta for call %q before its start", ev.ID)
			}
		case llm.EventToolCall:
			if ev.ID == "" || ev.ToolName == "" {
				fail("tool call without id or name: %+v", ev)
			}
			if !json.Valid([]byte(ev.Input)) {
				fail("tool call %q input is not JSON: %q", ev.ID, ev.Input)
			}
			r.ToolCalls = append(r.ToolCalls, Call{ID: ev.ID, Name: ev.ToolName, Input: ev.Input, Signature: ev.Signature, ItemID: ev.ItemID})
		case llm.EventFinish:
			e := ev
			r.Finish = &e
			if len(open) > 0 {
				fail("finish with blocks still open: %v", open)
			}
		case llm.EventError:
			if ev.Err == nil {
				fail("error event without an error")
			}
			r.Err = ev.Err
		default:
			fail("unknown event type %q", ev.Type)
		}
	}
	if r.Finish == nil && r.Err == nil {
		fail("stream ended without finish or error")
	}
	if bad != nil {
		r.Err = &llm.Error{Kind: "malformed", Message: bad.Error()}
	}
	return r
}

// Request is one request a Server received.
type Request struct {
	Method, Path, RawQuery string
	Header                 http.Header
	Body                   []byte
}

// Server is an httptest server that records every request.
type Server struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []Request
}

// NewServer starts a server answering with h; it is closed when the test
// ends.
func NewServer(t testing.TB, h http.HandlerFunc) *Server {
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, Request{Method: r.Method, Path: r.URL.Path, RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		s.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(func() {
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// SSE answers with body as a text/event-stream, byte for byte.
func SSE(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}
}

// Status answers with a status code, headers and a JSON body.
func Status(code int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

// ResetAfter writes part of a stream, then drops the connection without
// ending the response, as a crashed server or a broken network would.
func ResetAfter(partial []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(partial)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
			_ = tc.SetLinger(0) // send RST, not FIN
		}
		_ = conn.Close()
	}
}

// Hang writes part of a stream and then waits, without ending it, until
// the request's context is done.
func Hang(partial []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(partial)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// HTTPClient returns a client with its own transport, whose idle
// connections are closed when the test ends (so goleak sees no stray
// connection goroutines).
func HTTPClient(t testing.TB) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
