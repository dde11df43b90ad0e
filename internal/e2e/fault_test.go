package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// TestProviderFaults injects provider failures through the model server
// and checks that each run ends, within a deadline, in a recovery (the
// answer after the fault) or a clear error on the session, never a panic
// or a hang, and that every request after the fault is a valid
// transcript.
func TestProviderFaults(t *testing.T) {
	answer := func() http.Handler {
		return fakellm.NewServer(append(fakellm.Text("a", "Recovered answer."), fakellm.Finish(llm.FinishStop, llm.Usage{Input: 10, Output: 3})...))
	}
	script := func(src string) http.Handler {
		steps, err := fakellm.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return fakellm.NewServer(steps...)
	}
	tests := []struct {
		name     string
		wire     string
		handlers []http.Handler // one per request; the last answers the rest
		recover  bool           // the run must end with the answer
		minGap   time.Duration  // the least time the retry must wait
		check    func(t *testing.T, reqs []served)
		next     bool   // continue the session once more afterwards
		options  string // extra provider options, as JSON object members
	}{
		{
			name: "429 with retry-after",
			handlers: []http.Handler{status(http.StatusTooManyRequests, map[string]string{"Retry-After": "1"},
				`{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`), answer()},
			recover: true, minGap: 900 * time.Millisecond,
		},
		{
			name:     "500",
			handlers: []http.Handler{status(http.StatusInternalServerError, nil, `{"error":{"message":"The server had an error","type":"server_error"}}`), answer()},
			recover:  true,
		},
		{
			name: "529 overloaded",
			wire: "anthropic",
			handlers: []http.Handler{status(529, nil, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
				fakellm.NewServer(append(fakellm.Text("a", "Recovered answer."), fakellm.Finish(llm.FinishStop, llm.Usage{})...))},
			recover: true,
		},
		{
			name:     "connection reset mid-stream",
			handlers: []http.Handler{resetAfter(chatChunk(`{"content":"Half an ans"}`)), answer()},
			recover:  true,
		},
		{
			name:     "stream stops without a finish",
			handlers: []http.Handler{endAfter(chatChunk(`{"role":"assistant","content":"Half an ans"}`)), answer()},
			recover:  true,
		},
		{
			name: "invalid JSON in tool arguments",
			handlers: []http.Handler{script(`
step
call call_1 read {"filePath": "README.md
finish tool-calls
step
text Recovered answer.
finish stop
`)},
			recover: true,
			check:   toolResultSays("call_1", "invalid"),
		},
		{
			name: "call to a tool that does not exist",
			handlers: []http.Handler{script(`
step
call call_1 frobnicate {"level":11}
finish tool-calls
step
text Recovered answer.
finish stop
`)},
			recover: true,
			check:   toolResultSays("call_1", "frobnicate"),
		},
		{
			// With options.timeout a stalled stream is cut and retried.
			name:     "stream stalls (options.timeout)",
			handlers: []http.Handler{stall(chatChunk(`{"role":"assistant","content":"Half an ans"}`)), answer()},
			options:  `"timeout": 1500`,
			recover:  true,
		},
		{
			// An empty answer ends the turn; the next turn must still send
			// a valid transcript (no empty assistant message).
			name:     "empty response",
			handlers: []http.Handler{script("step\nfinish stop\n")},
			next:     true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, nil, map[string]string{"README.md": "# faults\n"})
			switch {
			case tt.wire == "anthropic":
				r.useAnthropic(t)
			case tt.options != "":
				r.writeConfig(`"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "` + r.modelURL + `/v1", "apiKey": "test", ` + tt.options + `}`)
			}
			r.model.swap(sequence(tt.handlers...))
			start := time.Now()
			out, stderr, code := r.run(60*time.Second, "run", "--auto", "--format", "json", "answer me")
			t.Logf("exit status %d after %v", code, time.Since(start).Round(time.Millisecond))
			if strings.Contains(stderr, "panic:") || strings.Contains(stderr, "goroutine ") {
				t.Fatalf("panic:\n%s", stderr)
			}
			if bad := r.model.invalid(); len(bad) > 0 {
				t.Errorf("invalid transcripts:\n%s", strings.Join(bad, "\n"))
			}
			reqs := r.model.requests()
			recovered := code == 0 && strings.Contains(out, "Recovered answer.")
			switch {
			case tt.recover && !recovered:
				t.Fatalf("no recovery: exit status %d, %d requests\nstdout:\n%s\nstderr:\n%s", code, len(reqs), out, stderr)
			case !recovered && code != 0 && !clearError(out, stderr):
				t.Fatalf("failed without a clear error: exit status %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			case code != 0 && code != 1:
				t.Fatalf("exit status %d\nstderr:\n%s", code, stderr)
			}
			if tt.minGap > 0 && len(reqs) >= 2 {
				if gap := reqs[1].arrived.Sub(reqs[0].arrived); gap < tt.minGap {
					t.Errorf("retried after %v, before the %v the server asked for", gap, tt.minGap)
				}
			}
			if tt.check != nil {
				tt.check(t, reqs)
			}
			if !recovered {
				t.Logf("outcome: exit status %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
			}
			if tt.next {
				r.model.swap(answer())
				out, stderr, code := r.run(60*time.Second, "run", "--auto", "--format", "json", "-c", "try again")
				if code != 0 || !strings.Contains(out, "Recovered answer.") {
					t.Fatalf("the next turn: exit status %d\nstdout:\n%s\nstderr:\n%s", code, out, stderr)
				}
				if bad := r.model.invalid(); len(bad) > 0 {
					t.Errorf("invalid transcripts on the next turn:\n%s", strings.Join(bad, "\n"))
				}
			}
		})
	}
}

// clearError reports whether a failed run said why: an error event in the
// JSON output or an error line on standard error.
func clearError(stdout, stderr string) bool {
	for _, line := range strings.Split(stdout, "\n") {
		var ev struct {
			Type  string          `json:"type"`
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "error" && len(ev.Error) > 2 {
			return true
		}
	}
	return strings.Contains(stderr, "rror")
}

// toolResultSays checks that the request after a faulty call carries a
// result for it that mentions word.
func toolResultSays(callID, word string) func(t *testing.T, reqs []served) {
	return func(t *testing.T, reqs []served) {
		if len(reqs) < 2 {
			t.Fatalf("%d requests, want a second one with the tool result", len(reqs))
		}
		var body struct {
			Messages []struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"tool_call_id"`
				Content    json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(reqs[1].body, &body); err != nil {
			t.Fatal(err)
		}
		for _, m := range body.Messages {
			if m.Role == "tool" && m.ToolCallID == callID {
				if !strings.Contains(strings.ToLower(string(m.Content)), word) {
					t.Errorf("the result of %s does not mention %q: %s", callID, word, m.Content)
				}
				return
			}
		}
		t.Errorf("no result for %s in the second request", callID)
	}
}

// sequence answers the i-th request with handlers[i], and every later one
// with the last handler.
func sequence(handlers ...http.Handler) http.Handler {
	var n atomic.Int64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		handlers[min(i, len(handlers)-1)].ServeHTTP(w, r)
	})
}

// status answers with an HTTP error.
func status(code int, header map[string]string, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	})
}

// chatChunk is one Chat Completions stream event with delta.
func chatChunk(delta string) string {
	return fmt.Sprintf(`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n", delta)
}

// resetAfter starts a 200 stream, writes partial, then resets the
// connection (RST, not FIN).
func resetAfter(partial string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, partial)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(http.ErrAbortHandler)
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close()
	})
}

// endAfter writes partial as a complete 200 stream: it ends cleanly but
// without a finish reason or [DONE].
func endAfter(partial string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, partial)
	})
}

// stall starts a 200 stream, writes partial and then sends nothing more
// until the client gives up.
func stall(partial string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, partial)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
}
