package fakellm

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"sync"
	"time"

	"github.com/codeloop/codeloop/internal/llm"
)

// The providers' prompt-cache accounting, as their documentation describes
// it, so that what a client sends can be measured in cache reads and
// writes without a real model.
//
// Anthropic Messages: the prompt is the tools, then the system blocks, then
// the messages' content blocks, in that order. A block carrying
// cache_control is a breakpoint: the prefix up to and including it is
// written to the cache (when it is at least CacheMinTokens long) for the
// breakpoint's TTL (5 minutes, or 1 hour with "ttl":"1h"), and a later
// request whose prompt has the same prefix reads it. A request finds a
// cached prefix only at a block boundary at most 20 blocks before one of
// its own breakpoints; a read refreshes the entry's TTL. The usage reports
// cache_read_input_tokens (the longest prefix read), cache_creation_input_tokens
// (from there to the last breakpoint) and input_tokens (the rest).
//
// OpenAI: no markers. The longest prefix a request shares with an earlier
// request's prompt (tools, then messages; for the Responses API tools,
// instructions, then input items) within the TTL is cached when it
// is at least 1,024 tokens long, in steps of 128 tokens; usage reports it
// as prompt_tokens_details.cached_tokens inside prompt_tokens (Responses:
// input_tokens_details.cached_tokens inside input_tokens).
//
// Tokens are estimated as a quarter of a block's JSON bytes (cache_control
// left out), at least one per block.

// CacheMinTokens is the shortest prefix either provider caches.
const CacheMinTokens = 1024

// cacheLookback is how many block boundaries before a breakpoint Anthropic
// checks for a cached prefix.
const cacheLookback = 20

// openAICacheTTL is how long an OpenAI prompt stays cached.
const openAICacheTTL = 10 * time.Minute

// promptCache holds the cached prefixes of one server.
type promptCache struct {
	mu      sync.Mutex
	now     func() time.Time
	entries map[[32]byte]time.Time // Anthropic: prefix hash → expiry
	prompts []cachedPrompt         // OpenAI: earlier prompts, oldest first
}

type cachedPrompt struct {
	text    []byte
	expires time.Time
}

func newPromptCache(now func() time.Time) *promptCache {
	if now == nil {
		now = time.Now
	}
	return &promptCache{now: now, entries: map[[32]byte]time.Time{}}
}

// tokens estimates the tokens of n bytes of JSON.
func tokens(n int) int64 { return max(1, int64(n)/4) }

// cacheBlock is one block of an Anthropic prompt.
type cacheBlock struct {
	data   []byte // the block's JSON without cache_control, with its role
	marker bool
	ttl    time.Duration
}

// anthropicBlocks splits a Messages request body into its prompt's blocks.
func anthropicBlocks(body []byte) ([]cacheBlock, bool) {
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		System   json.RawMessage   `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return nil, false
	}
	var out []cacheBlock
	add := func(prefix string, raw json.RawMessage) {
		out = append(out, block(prefix, raw))
	}
	for _, t := range req.Tools {
		add("tool:", t)
	}
	for _, b := range splitContent(req.System) {
		add("system:", b)
	}
	for _, m := range req.Messages {
		for _, b := range splitContent(m.Content) {
			add(m.Role+":", b)
		}
	}
	return out, true
}

// splitContent returns the blocks of a content or system value: a string
// is one block.
func splitContent(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '[' {
		return []json.RawMessage{raw}
	}
	var blocks []json.RawMessage
	_ = json.Unmarshal(raw, &blocks)
	return blocks
}

// block reads a block's marker and TTL and its bytes without them.
func block(prefix string, raw json.RawMessage) cacheBlock {
	b := cacheBlock{data: append([]byte(prefix), raw...)}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return b
	}
	cc, ok := obj["cache_control"]
	if !ok || string(cc) == "null" {
		return b
	}
	var c struct {
		TTL string `json:"ttl"`
	}
	_ = json.Unmarshal(cc, &c)
	b.marker, b.ttl = true, 5*time.Minute
	if c.TTL == "1h" {
		b.ttl = time.Hour
	}
	delete(obj, "cache_control")
	data, _ := json.Marshal(obj) // sorted keys: the same block hashes the same
	b.data = append([]byte(prefix), data...)
	return b
}

// anthropic accounts for one Messages request body.
func (c *promptCache) anthropic(body []byte) (llm.Usage, bool) {
	blocks, ok := anthropicBlocks(body)
	if !ok {
		return llm.Usage{}, false
	}
	n := len(blocks)
	hashes := make([][32]byte, n)
	cum := make([]int64, n) // tokens up to and including block i
	h := sha256.New()
	var total int64
	for i, b := range blocks {
		h.Write(b.data)
		h.Write([]byte{0})
		copy(hashes[i][:], h.Sum(nil))
		total += tokens(len(b.data))
		cum[i] = total
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	// The longest cached prefix at a boundary in reach of a breakpoint.
	read, readAt := int64(0), -1
	for m, b := range blocks {
		if !b.marker {
			continue
		}
		for k := m; k >= 0 && k > m-cacheLookback; k-- {
			if exp, ok := c.entries[hashes[k]]; ok && now.Before(exp) && cum[k] > read {
				read, readAt = cum[k], k
			}
		}
	}
	if readAt >= 0 {
		c.entries[hashes[readAt]] = now.Add(c.ttlAt(blocks, readAt))
	}
	// Every breakpoint past what was read is written.
	var written int64
	for m, b := range blocks {
		if !b.marker || cum[m] <= read || cum[m] < CacheMinTokens {
			continue
		}
		c.entries[hashes[m]] = now.Add(b.ttl)
		written = cum[m] - read
	}
	return llm.Usage{Input: total - read - written, CacheRead: read, CacheWrite: written}, true
}

// ttlAt is the TTL of the breakpoint at or after block k.
func (c *promptCache) ttlAt(blocks []cacheBlock, k int) time.Duration {
	for ; k < len(blocks); k++ {
		if blocks[k].marker {
			return blocks[k].ttl
		}
	}
	return 5 * time.Minute
}

// openAI accounts for one Chat Completions request body.
func (c *promptCache) openAI(body []byte) (llm.Usage, bool) {
	var req struct {
		Tools    json.RawMessage `json:"tools"`
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return llm.Usage{}, false
	}
	return c.openAIPrompt(append(append([]byte{}, req.Tools...), req.Messages...)), true
}

// openAIResponses accounts for one Responses request body: its tools,
// instructions and input items are the prompt.
func (c *promptCache) openAIResponses(body []byte) (llm.Usage, bool) {
	text, ok := responsesPrompt(body)
	if !ok {
		return llm.Usage{}, false
	}
	return c.openAIPrompt(text), true
}

// openAIPrompt accounts for one prompt under OpenAI's automatic prefix
// cache.
func (c *promptCache) openAIPrompt(text []byte) llm.Usage {
	total := tokens(len(text))
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	var shared int
	kept := c.prompts[:0]
	for _, p := range c.prompts {
		if !now.Before(p.expires) {
			continue
		}
		kept = append(kept, p)
		shared = max(shared, commonPrefix(p.text, text))
	}
	c.prompts = append(kept, cachedPrompt{text: text, expires: now.Add(openAICacheTTL)})
	if len(c.prompts) > 64 {
		c.prompts = c.prompts[len(c.prompts)-64:]
	}
	var cached int64
	if t := int64(shared) / 4; t >= CacheMinTokens {
		cached = CacheMinTokens + (t-CacheMinTokens)/128*128
	}
	cached = min(cached, total)
	return llm.Usage{Input: total - cached, CacheRead: cached}
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
