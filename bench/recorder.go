package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/fakellm"
	"github.com/codeloop/codeloop/internal/llm"
)

// recorder wraps a fake model server and notes, for every request, when it
// arrived, when its response was complete, and what it carried.
type recorder struct {
	next *fakellm.Server
	// dir, when set, receives every request body as NN.json, for reading
	// what a run sent.
	dir  string
	mu   sync.Mutex
	reqs []request
}

// request is one model request as the server saw it.
type request struct {
	arrived, done time.Time
	body          int // bytes
	system        int // bytes of system prompt text
	tools         int // bytes of the tool definitions (names, descriptions, schemas) as sent
	messages      int // conversation messages, system excluded
	// prompt is the request's input tokens as the server's prompt cache
	// counted them: uncached input, cache reads and cache writes.
	prompt llm.Usage
}

func newRecorder(next *fakellm.Server) *recorder { return &recorder{next: next} }

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrived := time.Now()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	rq := measure(body)
	rq.arrived = arrived
	rec.next.ServeHTTP(w, r)
	rq.done = time.Now()
	// One request at a time reaches a server in these scenarios, so its
	// last record is this request's.
	if all := rec.next.Prompts(); len(all) > 0 {
		rq.prompt = all[len(all)-1]
	}
	rec.mu.Lock()
	rec.reqs = append(rec.reqs, rq)
	n := len(rec.reqs)
	rec.mu.Unlock()
	if rec.dir != "" && os.MkdirAll(rec.dir, 0o755) == nil {
		_ = os.WriteFile(filepath.Join(rec.dir, fmt.Sprintf("%02d.json", n)), body, 0o644)
	}
}

// requests returns the requests recorded so far, in arrival order.
func (rec *recorder) requests() []request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	out := append([]request(nil), rec.reqs...)
	for i := 1; i < len(out); i++ { // insertion sort: a handful, nearly sorted
		for j := i; j > 0 && out[j].arrived.Before(out[j-1].arrived); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// measure reads a Chat Completions, Messages or Responses request body.
func measure(body []byte) request {
	var v struct {
		System       json.RawMessage   `json:"system"` // Messages
		Instructions json.RawMessage   `json:"instructions"`
		Tools        json.RawMessage   `json:"tools"`
		Messages     []json.RawMessage `json:"messages"`
		Input        []json.RawMessage `json:"input"` // Responses
	}
	rq := request{body: len(body)}
	if json.Unmarshal(body, &v) != nil {
		return rq
	}
	rq.tools = len(v.Tools)
	rq.system = textBytes(v.System) + textBytes(v.Instructions)
	for _, m := range append(v.Messages, v.Input...) {
		var msg struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m, &msg) != nil {
			continue
		}
		if msg.Role == "system" || msg.Role == "developer" {
			rq.system += textBytes(msg.Content)
			continue
		}
		rq.messages++
	}
	return rq
}

// textBytes is the length of the text in a string or in a list of text
// blocks.
func textBytes(raw json.RawMessage) int {
	if len(raw) == 0 {
		return 0
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return len(s)
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return 0
	}
	n := 0
	for _, b := range blocks {
		n += len(b.Text)
	}
	return n
}

// toolSpan is when a tool ran, from the run's JSON output, in Unix
// milliseconds.
type toolSpan struct{ start, end int64 }

// toolSpans reads the tool parts of `run --format json` output.
func toolSpans(stdout []byte) []toolSpan {
	var spans []toolSpan
	for _, line := range strings.Split(string(stdout), "\n") {
		var ev struct {
			Type string `json:"type"`
			Part struct {
				State struct {
					Time struct {
						Start int64 `json:"start"`
						End   int64 `json:"end"`
					} `json:"time"`
				} `json:"state"`
			} `json:"part"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "tool_use" {
			continue
		}
		t := ev.Part.State.Time
		if t.Start > 0 && t.End >= t.Start {
			spans = append(spans, toolSpan{t.Start, t.End})
		}
	}
	return spans
}

// overlap is how long the union of spans covers [from, to].
func overlap(spans []toolSpan, from, to time.Time) time.Duration {
	lo, hi := from.UnixMilli(), to.UnixMilli()
	covered := int64(0)
	cur := lo
	// Spans are few; sweep them in start order.
	sorted := append([]toolSpan(nil), spans...)
	for i := 1; i < len(sorted); i++ {
		for j := i; j > 0 && sorted[j].start < sorted[j-1].start; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	for _, s := range sorted {
		a, b := max(s.start, cur), min(s.end, hi)
		if b > a {
			covered += b - a
			cur = b
		}
	}
	return time.Duration(covered) * time.Millisecond
}
