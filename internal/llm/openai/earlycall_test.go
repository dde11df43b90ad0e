package openai

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// TestChatCallCompleteBeforeStreamEnd streams two tool calls and checks
// that the first is reported complete as soon as its arguments are (so
// the loop can start it), not when the whole response has ended; the
// second, whose arguments never parse, is completed by the end of the
// stream as before.
func TestChatCallCompleteBeforeStreamEnd(t *testing.T) {
	chunk := func(w http.ResponseWriter, delta string) {
		fmt.Fprintf(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n", delta)
		w.(http.Flusher).Flush()
	}
	seen := make(chan struct{})
	var later atomic.Bool // the server went on past the first call
	h := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		chunk(w, `{"role":"assistant","content":"Reading."}`)
		chunk(w, `{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{\"filePath\":"}}]}`)
		chunk(w, `{"tool_calls":[{"index":0,"function":{"arguments":"\"a.txt\"}"}}]}`)
		select {
		case <-seen:
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
		later.Store(true)
		chunk(w, `{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"read","arguments":"{\"filePath\": \"b"}}]}`)
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`+"\n\n")
		fmt.Fprint(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}`+"\n\n")
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
	p, _ := newTest(t, chatFlavour, Config{}, h)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	calls := map[string]string{}
	var order []string
	for ev := range p.Stream(ctx, simple()) {
		switch ev.Type {
		case llm.EventToolCall:
			if _, dup := calls[ev.ID]; dup {
				t.Errorf("call %s completed twice", ev.ID)
			}
			calls[ev.ID] = ev.Input
			order = append(order, ev.ID)
			if ev.ID == "call_a" {
				if later.Load() {
					t.Error("call_a was completed only after the server sent more")
				}
				close(seen)
			}
		case llm.EventError:
			t.Fatalf("error: %v", ev.Err)
		}
	}
	if calls["call_a"] != `{"filePath":"a.txt"}` || calls["call_b"] != `{"filePath": "b` || len(order) != 2 || order[0] != "call_a" {
		t.Errorf("calls %v in order %v", calls, order)
	}
}
