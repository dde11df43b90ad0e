package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
	"github.com/codeloop/codeloop/internal/llm/anthropic"
)

// clock is a settable time for cache expiry.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// messagesBody is a Messages request: one tool of toolBytes, a marked
// system block, and a user text block of textBytes per message, the
// listed ones marked.
func messagesBody(toolBytes int, msgs int, marked ...int) []byte {
	isMarked := map[int]bool{}
	for _, m := range marked {
		isMarked[m] = true
	}
	type blk map[string]any
	eph := map[string]any{"type": "ephemeral"}
	var messages []any
	for i := range msgs {
		b := blk{"type": "text", "text": fmt.Sprintf("message %d %s", i, strings.Repeat("x", 400))}
		if isMarked[i] {
			b["cache_control"] = eph
		}
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		messages = append(messages, map[string]any{"role": role, "content": []any{b}})
	}
	body, _ := json.Marshal(map[string]any{
		"model":    "m",
		"tools":    []any{map[string]any{"name": "read", "description": strings.Repeat("d", toolBytes)}},
		"system":   []any{blk{"type": "text", "text": "You are codeloop.", "cache_control": eph}},
		"messages": messages,
	})
	return body
}

func TestAnthropicCacheAccounting(t *testing.T) {
	clk := &clock{t: time.Unix(1_000_000, 0)}
	c := newPromptCache(clk.now)
	type want struct{ read, wrote bool }
	steps := []struct {
		name    string
		body    []byte
		advance time.Duration
		want    want
	}{
		{"first request writes its prefix", messagesBody(8000, 3, 1, 2), 0, want{false, true}},
		{"the next step reads it and writes what it adds", messagesBody(8000, 5, 3, 4), time.Minute, want{true, true}},
		{"the same request again reads everything", messagesBody(8000, 5, 3, 4), time.Minute, want{true, false}},
		{"after the TTL nothing is read", messagesBody(8000, 5, 3, 4), 6 * time.Minute, want{false, true}},
		{"a changed tool reads nothing", messagesBody(8001, 5, 3, 4), 0, want{false, true}},
		{"a prefix too short is not written", messagesBody(10, 1, 0), 0, want{false, false}},
	}
	for _, s := range steps {
		clk.t = clk.t.Add(s.advance)
		u, ok := c.anthropic(s.body)
		if !ok {
			t.Fatalf("%s: body not read", s.name)
		}
		blocks, _ := anthropicBlocks(s.body)
		var total int64
		for _, b := range blocks {
			total += tokens(len(b.data))
		}
		if u.Input+u.CacheRead+u.CacheWrite != total {
			t.Errorf("%s: %+v does not add up to %d tokens", s.name, u, total)
		}
		if got := (want{u.CacheRead > 0, u.CacheWrite > 0}); got != s.want {
			t.Errorf("%s: usage %+v, want read %v wrote %v", s.name, u, s.want.read, s.want.wrote)
		}
	}
}

// TestAnthropicCacheReadsLongestPrefix checks that a later request reads
// exactly what an earlier one wrote up to its last breakpoint, and that a
// cached prefix more than 20 blocks before every breakpoint is not found.
func TestAnthropicCacheReadsLongestPrefix(t *testing.T) {
	c := newPromptCache(nil)
	first, _ := c.anthropic(messagesBody(8000, 4, 3))
	next, _ := c.anthropic(messagesBody(8000, 6, 5))
	if next.CacheRead != first.CacheRead+first.CacheWrite {
		t.Errorf("second request read %d, want the %d the first wrote", next.CacheRead, first.CacheRead+first.CacheWrite)
	}
	// The 40-message request's last breakpoint is 34 blocks past the
	// cached prefix that ends at message 5: only its system breakpoint
	// finds something, the tools and system prefix.
	far, _ := c.anthropic(messagesBody(8000, 40, 39))
	blocks, _ := anthropicBlocks(messagesBody(8000, 40, 39))
	if sys := tokens(len(blocks[0].data)) + tokens(len(blocks[1].data)); far.CacheRead != sys {
		t.Errorf("a request 34 blocks past the cached prefix read %d, want only the tools and system prefix (%d)", far.CacheRead, sys)
	}
}

func TestOpenAICacheAccounting(t *testing.T) {
	c := newPromptCache(nil)
	body := func(shared, own int) []byte {
		b, _ := json.Marshal(map[string]any{"model": "m",
			"messages": []any{map[string]any{"role": "user", "content": strings.Repeat("s", shared) + strings.Repeat("o", own)}}})
		return b
	}
	tests := []struct {
		name   string
		body   []byte
		cached int64
	}{
		{"nothing before", body(8000, 0), 0},
		{"shared prefix past 1,024 tokens, in steps of 128", body(6000, 2000), 1024 + (6000/4+9/4-1024)/128*128},
		{"shared prefix under 1,024 tokens", body(3000, 3000), 0},
	}
	for _, tt := range tests {
		u, ok := c.openAI(tt.body)
		if !ok {
			t.Fatalf("%s: body not read", tt.name)
		}
		if u.CacheRead != tt.cached || u.CacheWrite != 0 {
			t.Errorf("%s: %+v, want %d cached", tt.name, u, tt.cached)
		}
		if (u.CacheRead-CacheMinTokens)%128 != 0 && u.CacheRead != 0 {
			t.Errorf("%s: cached %d is not 1,024 plus a multiple of 128", tt.name, u.CacheRead)
		}
	}
}

// TestServerReportsCache checks the accounting reaches the adapter through
// the Messages wire: the second request of a conversation reads what the
// first wrote.
func TestServerReportsCache(t *testing.T) {
	step := append(Text("t", "ok"), Finish(llm.FinishStop, llm.Usage{Input: 1, Output: 1})...)
	srv := NewServer(step, step).AccountCache(nil)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	p := anthropic.New(anthropic.Config{APIKey: "k", BaseURL: hs.URL})
	req := &llm.Request{Model: "m", System: []string{strings.Repeat("You are codeloop. ", 400)},
		Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "hi"}}}}}
	first := collectReq(t, p, req)
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: "ok"}}},
		llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: "more"}}})
	second := collectReq(t, p, req)
	if first.CacheWrite == 0 || first.CacheRead != 0 {
		t.Errorf("first request usage %+v, want a cache write and no read", first)
	}
	if second.CacheRead < first.CacheWrite {
		t.Errorf("second request usage %+v, want at least the %d tokens written before read", second, first.CacheWrite)
	}
	prompts := srv.Prompts()
	if len(prompts) != 2 || prompts[1] != (llm.Usage{Input: second.Input, CacheRead: second.CacheRead, CacheWrite: second.CacheWrite}) {
		t.Errorf("counted %+v, want the reported usage %+v", prompts, second)
	}
}

func collectReq(t *testing.T, p llm.Provider, req *llm.Request) llm.Usage {
	t.Helper()
	var u llm.Usage
	for ev := range p.Stream(t.Context(), req) {
		switch ev.Type {
		case llm.EventFinish:
			u = ev.Usage
		case llm.EventError:
			t.Fatal(ev.Err)
		}
	}
	return u
}
