package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// Server is an http.Handler that answers model requests with the steps of
// its script, one step per request, in the wire format the path asks for:
// OpenAI Chat Completions (a path ending in /chat/completions), OpenAI
// Responses (a path ending in /responses) or Anthropic Messages (a path
// ending in /messages). Serve it with httptest.NewServer.
//
// An error event that comes first in a step becomes an HTTP error response
// (with retry-after-ms when the error has a delay); later it cuts the
// connection. A hang keeps the response open until the client goes away
// and closes the channel Hung returns.
//
// With AccountCache, the server keeps the providers' prompt cache (see
// cache.go) and reports each response's input, cache-read and cache-write
// tokens from the request it answers instead of the script's.
type Server struct {
	mu       sync.Mutex
	steps    []Step
	next     int
	requests []Recorded
	prompts  []llm.Usage // per request, with AccountCache
	hung     chan struct{}
	hungOnce sync.Once
	cache    *promptCache
}

// Recorded is one request the server received.
type Recorded struct {
	Path string
	Body json.RawMessage
}

// Prompts returns, for each request received so far, its input,
// cache-read and cache-write tokens as the server's prompt cache counted
// them (zero without AccountCache or for a body it could not read), in the
// order of Requests.
func (s *Server) Prompts() []llm.Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Usage(nil), s.prompts...)
}

// AccountCache turns on the prompt-cache accounting, with now as the clock
// the cache entries expire by (time.Now when nil), and returns s. Call it
// before serving.
func (s *Server) AccountCache(now func() time.Time) *Server {
	s.cache = newPromptCache(now)
	return s
}

// NewServer returns a server that plays steps.
func NewServer(steps ...Step) *Server {
	return &Server{steps: steps, hung: make(chan struct{})}
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.requests...)
}

// Hung is closed once a step has reached a hang.
func (s *Server) Hung() <-chan struct{} { return s.hung }

// Remaining is the number of steps not played yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.steps) - s.next
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var anthropic, responses bool
	switch {
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
	case strings.HasSuffix(r.URL.Path, "/messages"):
		anthropic = true
	case strings.HasSuffix(r.URL.Path, "/responses"):
		responses = true
	default:
		http.Error(w, "fakellm: unknown path "+r.URL.Path, http.StatusNotFound)
		return
	}
	var prompt *llm.Usage
	if s.cache != nil {
		count := s.cache.openAI
		switch {
		case anthropic:
			count = s.cache.anthropic
		case responses:
			count = s.cache.openAIResponses
		}
		if u, ok := count(body); ok {
			prompt = &u
		}
	}
	s.mu.Lock()
	s.requests = append(s.requests, Recorded{Path: r.URL.Path, Body: body})
	var counted llm.Usage
	if prompt != nil {
		counted = *prompt
	}
	s.prompts = append(s.prompts, counted)
	var step Step
	if s.next < len(s.steps) {
		step = s.steps[s.next]
		s.next++
	}
	s.mu.Unlock()
	if step == nil {
		writeError(w, anthropic, &llm.Error{Kind: llm.ErrOther, StatusCode: 400, Message: "fakellm: the script has no more steps"})
		return
	}
	if len(step) > 0 && step[0].Type == llm.EventError {
		writeError(w, anthropic, step[0].Err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	var enc encoder = &chatEncoder{w: w}
	switch {
	case anthropic:
		enc = &messagesEncoder{w: w, prompt: prompt}
	case responses:
		enc = &responsesEncoder{w: w}
	}
	enc.start()
	flush(w)
	var played Step
	for _, ev := range step {
		if ev.Type == EventHang {
			played = append(played, llm.Event{Type: EventPause})
		}
		played = append(played, ev)
	}
	Play(r.Context(), "fake", played, func(context.Context) { s.markHung() }, func(ev llm.Event) bool {
		if ev.Type == llm.EventError {
			if ev.Err != nil && ev.Err.Kind == llm.ErrCanceled {
				return false
			}
			panic(http.ErrAbortHandler) // cut the connection mid-stream
		}
		if ev.Type == llm.EventFinish && prompt != nil {
			ev.Usage.Input, ev.Usage.CacheRead, ev.Usage.CacheWrite = prompt.Input, prompt.CacheRead, prompt.CacheWrite
		}
		enc.event(ev)
		flush(w)
		return true
	})
	if r.Context().Err() == nil {
		enc.end()
		flush(w)
	}
}

// markHung closes the hung channel; a pause in a server's script marks it
// too, and every hang is preceded by one.
func (s *Server) markHung() { s.hungOnce.Do(func() { close(s.hung) }) }

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeError(w http.ResponseWriter, anthropic bool, e *llm.Error) {
	status := e.StatusCode
	if status == 0 {
		switch e.Kind {
		case llm.ErrRetryable:
			status = http.StatusServiceUnavailable
		case llm.ErrAuth:
			status = http.StatusUnauthorized
		default:
			status = http.StatusBadRequest
		}
	}
	if e.RetryAfter > 0 {
		w.Header().Set("retry-after-ms", strconv.FormatInt(e.RetryAfter.Milliseconds(), 10))
	}
	typ := "invalid_request_error"
	switch {
	case status == http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case e.Kind == llm.ErrAuth:
		typ = "authentication_error"
	case status >= 500:
		typ = "overloaded_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	var body any = map[string]any{"error": map[string]any{"message": e.Message, "type": typ}}
	if anthropic {
		body = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": e.Message}}
	}
	_ = json.NewEncoder(w).Encode(body)
}

// encoder writes one wire format.
type encoder interface {
	start()
	event(llm.Event)
	end()
}

func sse(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
}

// chatEncoder writes OpenAI Chat Completions chunks.
type chatEncoder struct {
	w     io.Writer
	calls map[string]int // tool call id → index
	usage *llm.Usage
}

func (c *chatEncoder) chunk(delta map[string]any, finish any) {
	sse(c.w, "", map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	})
}

func (c *chatEncoder) start() {
	c.calls = map[string]int{}
	c.chunk(map[string]any{"role": "assistant", "content": ""}, nil)
}

func (c *chatEncoder) event(ev llm.Event) {
	switch ev.Type {
	case llm.EventTextDelta:
		c.chunk(map[string]any{"content": ev.Text}, nil)
	case llm.EventReasoningDelta:
		c.chunk(map[string]any{"reasoning_content": ev.Text}, nil)
	case llm.EventToolInputStart:
		i := len(c.calls)
		c.calls[ev.ID] = i
		c.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": ev.ID, "type": "function",
			"function": map[string]any{"name": ev.ToolName, "arguments": ""}}}}, nil)
	case llm.EventToolInputDelta:
		c.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": c.calls[ev.ID],
			"function": map[string]any{"arguments": ev.Text}}}}, nil)
	case llm.EventToolCall:
		if _, ok := c.calls[ev.ID]; !ok {
			i := len(c.calls)
			c.calls[ev.ID] = i
			c.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": ev.ID, "type": "function",
				"function": map[string]any{"name": ev.ToolName, "arguments": ev.Input}}}}, nil)
		}
	case llm.EventFinish:
		reason := map[llm.FinishReason]string{llm.FinishToolCalls: "tool_calls", llm.FinishLength: "length",
			llm.FinishContentFilter: "content_filter"}[ev.Reason]
		if reason == "" {
			reason = "stop"
		}
		c.chunk(map[string]any{}, reason)
		u := ev.Usage
		c.usage = &u
	}
}

func (c *chatEncoder) end() {
	if c.usage != nil {
		u := c.usage
		prompt := u.Input + u.CacheRead
		completion := u.Output + u.Reasoning
		sse(c.w, "", map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1, "model": "fake", "choices": []any{},
			"usage": map[string]any{
				"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
				"prompt_tokens_details":     map[string]any{"cached_tokens": u.CacheRead},
				"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
			},
		})
	}
	fmt.Fprint(c.w, "data: [DONE]\n\n")
}

// messagesEncoder writes Anthropic Messages events.
type messagesEncoder struct {
	w      io.Writer
	prompt *llm.Usage // the prompt's tokens, reported at the start as the API does
	index  int
	open   map[string]int // block or call id → content index
}

func (m *messagesEncoder) start() {
	m.open = map[string]int{}
	usage := map[string]any{"input_tokens": 0, "output_tokens": 0}
	if p := m.prompt; p != nil {
		usage = map[string]any{"input_tokens": p.Input, "output_tokens": 1,
			"cache_creation_input_tokens": p.CacheWrite, "cache_read_input_tokens": p.CacheRead}
	}
	sse(m.w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake", "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
}

func (m *messagesEncoder) block(id string, cb map[string]any) int {
	i := m.index
	m.index++
	m.open[id] = i
	sse(m.w, "content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": cb})
	return i
}

func (m *messagesEncoder) delta(id string, d map[string]any) {
	sse(m.w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": m.open[id], "delta": d})
}

func (m *messagesEncoder) stop(id string) {
	sse(m.w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": m.open[id]})
	delete(m.open, id)
}

func (m *messagesEncoder) event(ev llm.Event) {
	switch ev.Type {
	case llm.EventTextStart:
		m.block("t:"+ev.ID, map[string]any{"type": "text", "text": ""})
	case llm.EventTextDelta:
		m.delta("t:"+ev.ID, map[string]any{"type": "text_delta", "text": ev.Text})
	case llm.EventTextEnd:
		m.stop("t:" + ev.ID)
	case llm.EventReasoningStart:
		m.block("r:"+ev.ID, map[string]any{"type": "thinking", "thinking": ""})
	case llm.EventReasoningDelta:
		m.delta("r:"+ev.ID, map[string]any{"type": "thinking_delta", "thinking": ev.Text})
	case llm.EventReasoningEnd:
		if ev.Signature != "" {
			m.delta("r:"+ev.ID, map[string]any{"type": "signature_delta", "signature": ev.Signature})
		}
		m.stop("r:" + ev.ID)
	case llm.EventToolInputStart:
		m.block("c:"+ev.ID, map[string]any{"type": "tool_use", "id": ev.ID, "name": ev.ToolName, "input": map[string]any{}})
	case llm.EventToolInputDelta:
		m.delta("c:"+ev.ID, map[string]any{"type": "input_json_delta", "partial_json": ev.Text})
	case llm.EventToolCall:
		if _, ok := m.open["c:"+ev.ID]; !ok {
			m.block("c:"+ev.ID, map[string]any{"type": "tool_use", "id": ev.ID, "name": ev.ToolName, "input": map[string]any{}})
			m.delta("c:"+ev.ID, map[string]any{"type": "input_json_delta", "partial_json": ev.Input})
		}
		m.stop("c:" + ev.ID)
	case llm.EventFinish:
		reason := map[llm.FinishReason]string{llm.FinishToolCalls: "tool_use", llm.FinishLength: "max_tokens",
			llm.FinishContentFilter: "refusal"}[ev.Reason]
		if reason == "" {
			reason = "end_turn"
		}
		u := ev.Usage
		sse(m.w, "message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": reason, "stop_sequence": nil},
			"usage": map[string]any{"input_tokens": u.Input, "output_tokens": u.Output + u.Reasoning,
				"cache_read_input_tokens": u.CacheRead, "cache_creation_input_tokens": u.CacheWrite}})
	}
}

func (m *messagesEncoder) end() {
	sse(m.w, "message_stop", map[string]any{"type": "message_stop"})
}
